package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/termsafe"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// printer turns run events into progress lines on stderr, or JSON lines.
type printer struct {
	env *Env
	f   *runFlags
	mu  sync.Mutex
	// failed holds, per stage and item, a model call that failed and is
	// not printed yet: when the stage goes on (a fallback model, a retry)
	// it is printed with its reason; when the stage fails with it, the
	// error icm prints last says the reason, once.
	failed map[modelKey]*report.Event
}

type modelKey struct {
	stage string
	index int
}

func newPrinter(env *Env, f *runFlags) *printer {
	return &printer{env: env, f: f, failed: map[modelKey]*report.Event{}}
}

// flushFailed prints the held model failures of a stage: with their
// reason when the stage went on after them, without it when the stage
// failed (the final error says it).
func (p *printer) flushFailed(stage string, withReason bool) {
	var keys []modelKey
	for k := range p.failed {
		if k.stage == stage {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].index < keys[j].index })
	for _, k := range keys {
		m := p.failed[k].Model
		delete(p.failed, k)
		if withReason {
			fmt.Fprintf(p.env.Stderr, "    model %s failed: %s\n", m.Model, strings.TrimPrefix(m.Err, "stage "+stage+": "))
		} else {
			fmt.Fprintf(p.env.Stderr, "    model %s failed\n", m.Model)
		}
	}
}

// dropFailed forgets the held model failures of a stage, unprinted.
func (p *printer) dropFailed(stage string) {
	for k := range p.failed {
		if k.stage == stage {
			delete(p.failed, k)
		}
	}
}

func (p *printer) event(ev report.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f.asJSON {
		if ev.Kind != report.EventDelta {
			data, _ := json.Marshal(ev)
			fmt.Fprintln(termsafe.Raw(p.env.Stdout), string(data))
		}
		return
	}
	if p.f.quiet {
		return
	}
	w := p.env.Stderr
	if ev.Kind != report.EventStageEnd && ev.Kind != report.EventDelta {
		p.flushFailed(ev.Stage, true)
	}
	switch ev.Kind {
	case report.EventStageStart:
		fmt.Fprintf(w, "▶ %s: %s\n", ev.Stage, ev.Message)
	case report.EventItemStart:
		fmt.Fprintf(w, "  %s\n", ev.Message)
	case report.EventItemEnd:
		if strings.Contains(ev.Message, "kept from") {
			fmt.Fprintf(w, "  %s\n", ev.Message)
		}
	case report.EventModel:
		m := ev.Model
		if m.Err != "" {
			held := ev
			p.failed[modelKey{ev.Stage, ev.Index}] = &held
			return
		}
		rate := human.Rate(m.OutputTokens, m.Eval)
		if rate != "" {
			rate = ", " + rate
		}
		calls := ""
		if m.ToolCalls > 0 {
			calls = ", " + plural(m.ToolCalls, "tool call")
		}
		fmt.Fprintf(w, "    model %s: %s, %s%s%s\n", m.Model, human.InOut(m.PromptTokens, m.OutputTokens), human.Duration(m.Duration), rate, calls)
	case report.EventTool:
		t := ev.Tool
		args, _ := json.Marshal(t.Args)
		status := fmt.Sprintf("%s in %s", human.Size(int64(t.ResultSize)), human.Duration(t.Duration))
		if t.IsError || t.Err != "" {
			status = "error: " + firstLine(t.Err)
		}
		fmt.Fprintf(w, "    tool %s %s -> %s\n", t.Name, clip(string(args), 100), status)
	case report.EventScript:
		if ev.Message != "" {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(clip(ev.Message, 400), "\n", "\n    "))
		}
	case report.EventVerify:
		fmt.Fprintf(w, "  %s\n", ev.Message)
		for _, v := range ev.Verify {
			for _, f := range v.Findings {
				fmt.Fprintf(w, "    %s: %s\n", loc(f), f.Message)
			}
		}
		printRubric(w, ev.Rubric, "    ")
	case report.EventStageEnd:
		if ev.Status == "cancelled" {
			// A model call a cancel ended did not fail: the cancel is
			// the one thing to say.
			p.dropFailed(ev.Stage)
			fmt.Fprintf(w, "✗ %s cancelled\n", ev.Stage)
			return
		}
		if ev.Err != "" {
			// The error itself is what icm prints last, with its hint.
			p.flushFailed(ev.Stage, false)
			fmt.Fprintf(w, "✗ %s %s\n", ev.Stage, strings.Replace(ev.Message, ": "+ev.Err, "", 1))
			return
		}
		p.flushFailed(ev.Stage, true)
		mark, msg := "✓", ev.Message
		if n, of := failedChecks(ev.Verify); n > 0 {
			// Written, but not done: the checks say what to fix first.
			mark, msg = "⚠", msg+"; "+human.Failed(n, of, "Verify check")
		}
		if pass, of, _ := state.RubricCount(ev.Rubric); pass < of {
			mark, msg = "⚠", msg+"; "+human.Failed(of-pass, of, "rubric check")
		}
		fmt.Fprintf(w, "%s %s %s (%s, %s)\n", mark, ev.Stage, msg, human.Duration(ev.Duration), human.InOut(ev.PromptTokens, ev.OutputTokens))
	case report.EventGate:
		if ev.Status == string(state.Approved) {
			fmt.Fprintf(w, "  %s\n", ev.Message)
		}
	}
}

// finish prints where the run stopped and what to do next; the commands
// it suggests repeat the run's workspace and model flags.
func (p *printer) finish(ws *workspace.Workspace, sum *report.Summary, err error, g *globalFlags) {
	if p.f.asJSON {
		// The last line is the summary, also when the run failed before
		// any stage started (no summary then, only the error).
		var hint string
		if f := fault.From(err); f != nil {
			hint = f.Hint
		}
		data, _ := json.Marshal(struct {
			Kind string `json:"kind"`
			*report.Summary
			Error     string `json:"error,omitempty"`
			ErrorKind string `json:"error_kind,omitempty"`
			Hint      string `json:"hint,omitempty"`
		}{"summary", sum, errString(err), string(fault.KindOf(err)), hint})
		fmt.Fprintln(termsafe.Raw(p.env.Stdout), string(data))
		return
	}
	if sum == nil {
		return
	}
	if err != nil {
		return
	}
	out := p.env.Stdout
	printCommitted(out, sum)
	if len(sum.Ran) == 0 {
		if len(sum.Adopted) > 0 {
			fmt.Fprintln(out, nextLine(&state.PipelineState{Next: sum.Next}, ws, g))
			return
		}
		fmt.Fprintf(out, "nothing to run: %s\n", withFlags(sum.Next.Message, usedFlags{workspace: g.workspace}))
		return
	}
	last := sum.Ran[len(sum.Ran)-1]
	if last.Manual != "" {
		printManual(out, last, usedFlags{workspace: g.workspace})
		return
	}
	if sum.Next.Action == state.ActionApprove {
		flags := usedFlags{workspace: g.workspace}
		files := strings.Join(displayAll(p.env, ws, outputsOf(sum, sum.Next.Stage, last)), ", ")
		res := resultOf(sum, sum.Next.Stage)
		n, of := failedChecks(verifyOf(sum, sum.Next.Stage))
		rubricFailed := res != nil && rubricFails(res.Rubric)
		if n > 0 || rubricFailed {
			// A plain approve is refused while the checks fail: say the
			// two ways through the gate that work.
			if n > 0 {
				fmt.Fprintf(out, "Review gate: %s on %s (above).\n", human.Failed(n, of, "Verify check"), files)
			} else {
				fmt.Fprintf(out, "Review gate: %s on %s (above).\n", state.RubricLine(res.Rubric), files)
			}
			printChecklist(out, res)
			printGate(out, p.env, ws, gateOf(res), flags, "  ")
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "  fix it, then:\t%s\n", flags.command("approve", sum.Next.Stage))
			fmt.Fprintf(tw, "  or approve it as it is:\t%s\n", flags.command("approve", sum.Next.Stage, "--force", "--note", "REASON"))
			tw.Flush()
			return
		}
		fmt.Fprintf(out, "Review gate: read %s, edit it if needed, then:\n  %s\n", files, flags.command("approve", sum.Next.Stage))
		printChecklist(out, res)
		printGate(out, p.env, ws, gateOf(res), flags, "  ")
		return
	}
	fmt.Fprintln(out, nextLine(&state.PipelineState{Next: sum.Next}, ws, g))
}

// failedChecks counts the Verify checks that failed, and all of them.
func failedChecks(results []state.VerifyResult) (failed, of int) {
	for _, v := range results {
		if !v.OK {
			failed++
		}
	}
	return failed, len(results)
}

// resultOf is the run's result for stage, nil when the run did not run it.
func resultOf(sum *report.Summary, stage string) *report.StageResult {
	for _, r := range sum.Ran {
		if r.Stage == stage {
			return r
		}
	}
	return nil
}

// rubricFails reports whether a rubric check failed.
func rubricFails(checks []state.RubricCheck) bool {
	pass, of, _ := state.RubricCount(checks)
	return pass < of
}

// printChecklist prints the contract's Review Gate under the gate's
// lines: what its author asks the person to check before approving.
func printChecklist(out io.Writer, res *report.StageResult) {
	if res == nil || res.ReviewGate == "" {
		return
	}
	fmt.Fprintln(out, "  The contract's Review Gate asks you to check:")
	for _, item := range contract.ReviewItems(res.ReviewGate) {
		fmt.Fprintf(out, "    - %s\n", item)
	}
}

// verifyOf is the Verify results of the run of stage, nil when the run
// did not run it.
func verifyOf(sum *report.Summary, stage string) []state.VerifyResult {
	for _, r := range sum.Ran {
		if r.Stage == stage {
			return r.Verify
		}
	}
	return nil
}

func outputsOf(sum *report.Summary, stage string, fallback *report.StageResult) []string {
	for _, r := range sum.Ran {
		if r.Stage == stage {
			return r.Outputs
		}
	}
	return fallback.Outputs
}

func displayAll(env *Env, ws *workspace.Workspace, rels []string) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = displayPath(env, ws.Abs(r))
	}
	return out
}

func loc(f state.VerifyFinding) string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return clip(line, 160)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// nextLine is the "next:" line: the state's own words, with each command
// they name repeated with the workspace flag the command ran with. A model
// override is not repeated: it was for that run only.
func nextLine(p *state.PipelineState, ws *workspace.Workspace, g *globalFlags) string {
	return "next: " + withFlags(p.Next.Message, usedFlags{workspace: g.workspace})
}

// withFlags rewrites the `icm ...` commands quoted in msg to carry flags.
func withFlags(msg string, flags usedFlags) string {
	if flags.workspace == "" {
		return msg
	}
	var b strings.Builder
	for {
		i := strings.Index(msg, "`icm ")
		if i < 0 {
			break
		}
		j := strings.IndexByte(msg[i+1:], '`')
		if j < 0 {
			break
		}
		args := strings.Fields(msg[i+len("`icm ") : i+1+j])
		b.WriteString(msg[:i] + "`" + flags.command(args...) + "`")
		msg = msg[i+2+j:]
	}
	return b.String() + msg
}

// printRubric prints the rubric checks that failed, one a line under
// indent: where, what is wrong, and which rubric asked for it.
func printRubric(w io.Writer, checks []state.RubricCheck, indent string) {
	for _, c := range checks {
		if c.OK || c.Note {
			continue
		}
		where := c.Output
		if c.Line > 0 {
			where = fmt.Sprintf("%s:%d", c.Output, c.Line)
		}
		fmt.Fprintf(w, "%s%s: %s (%s)\n", indent, where, c.Message, c.Rubric)
	}
}
