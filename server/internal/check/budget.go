package check

// This file holds the assembled context against the stage budget and the
// model's window.

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func (c *checker) budget(st *workspace.Stage, k *contract.Contract, ctx *assemble.Context) {
	if budget := c.ws.Config.Workflow.TokenBudget; budget > 0 && ctx.Total > budget {
		// The method's 8,000 is a rule of thumb, a note; a budget the
		// workspace sets in config.toml is its own limit, a warning.
		sev, whose := contract.Warning, "the stage budget of config.toml"
		if budget == config.Defaults().Workflow.TokenBudget {
			sev, whose = contract.Info, "the method's stage budget"
		}
		c.add(contract.Finding{File: st.Contract, Range: k.TitleRange, Severity: sev, Code: contract.CodeOverBudget,
			Message: fmt.Sprintf("the assembled context is about %d tokens, over %s (%d); section-scope or trim the inputs", ctx.Total, whose, budget)})
	}
	if w := c.opts.Window; w > 0 && ctx.Total+c.opts.Reserve > w {
		fix, data := "use a model with a larger window", map[string]string(nil)
		if p := largestInput(ctx); p != nil {
			fix = fmt.Sprintf("trim or section-scope the largest input, %s (%s), or use a model with a larger window", p.Path, human.Estimate(p.Tokens))
			data = map[string]string{"largest": p.Path}
		}
		// Refused only where it is certain: an estimate over the window
		// by less than its error may fit, and the run asks the server,
		// which says for certain (package llm refuses by the same rule).
		exact := c.opts.Estimator.Name() == tokens.Bytes.Name()
		sev, verb := contract.Error, "does not fit"
		if !tokens.SurelyOver(ctx.Total, c.opts.Reserve, w, exact) {
			sev, verb = contract.Warning, "may not fit (the estimate errs by up to 15%; the model server's own count decides when it runs)"
		}
		c.add(contract.Finding{File: st.Contract, Range: k.TitleRange, Severity: sev, Code: contract.CodeOverWindow, Data: data,
			Message: fmt.Sprintf("the assembled context (%s) plus %s for the answer %s the model's window of %s: %s", human.Estimate(ctx.Total), human.Count(c.opts.Reserve), verb, human.Tokens(w), fix)})
	}
}

// largestInput is the loaded input (layer 3 or 4) with the most tokens,
// or nil when the stage loads none.
func largestInput(ctx *assemble.Context) *assemble.Part {
	var best *assemble.Part
	for i := range ctx.Parts {
		p := &ctx.Parts[i]
		if (p.Layer == contract.LayerReference || p.Layer == contract.LayerWorking) && p.Path != "" && (best == nil || p.Tokens > best.Tokens) {
			best = p
		}
	}
	return best
}
