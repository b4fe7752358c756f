package codecheck

import (
	"context"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
)

// DefaultAttempts is how many fixes one block gets before its failure is reported.
const DefaultAttempts = 3

// Fixer runs the bounded repair loop: a failing block goes to the model
// with its first error only, the answer replaces the block in the document
// and the block is checked again, at most Attempts times. The model only
// proposes; the check decides.
type Fixer struct {
	Checker *Checker
	Client  llm.Client
	Model   string
	// Attempts per block (DefaultAttempts when 0).
	Attempts int
	// Stage names the calls in errors and traces.
	Stage string
	// Observe receives the model calls' events (for the run's trace).
	Observe func(agent.Event)
	// Settings for the calls.
	Temperature *float64
	NumCtx      int
}

// Attempt is one try at fixing a block.
type Attempt struct {
	// Error is the error the model was shown.
	Error string `json:"error"`
	// Code is the model's fix, as it now stands in the document.
	Code string `json:"code"`
	// OK says whether the fixed code passed; After is its error when not.
	OK    bool   `json:"ok"`
	After string `json:"after,omitempty"`
}

// BlockReport is what happened to one block.
type BlockReport struct {
	Result   Result    `json:"result"`
	Attempts []Attempt `json:"attempts,omitempty"`
	// FirstError is the block's error before any fix ("" when it passed at once).
	FirstError string `json:"first_error,omitempty"`
}

// Fix checks every block of src and repairs failing ones; it returns the
// document with the fixed blocks and a report per Python or Go block. A
// block no attempt could fix keeps its original code.
func (f *Fixer) Fix(ctx context.Context, src []byte, run bool) ([]byte, []BlockReport, error) {
	attempts := f.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	var reports []BlockReport
	for i := 0; i < len(Extract(src)); i++ {
		b := Extract(src)[i]
		if b.Lang == "" {
			continue
		}
		res := f.Checker.CheckBlock(ctx, b, run)
		rep := BlockReport{Result: res}
		original := b.Code
		if !res.OK {
			rep.FirstError = res.Error
		}
		for n := 0; !res.OK && n < attempts && f.Client != nil; n++ {
			if err := ctx.Err(); err != nil {
				return src, reports, err
			}
			sent := res.Error
			code, err := f.ask(ctx, b, res, n+1, attempts)
			if err != nil {
				return src, reports, err
			}
			src = Replace(src, b, code)
			b = Extract(src)[i]
			res = f.Checker.CheckBlock(ctx, b, run)
			rep.Attempts = append(rep.Attempts, Attempt{Error: sent, Code: b.Code, OK: res.OK, After: res.Error})
			rep.Result = res
		}
		if !res.OK && len(rep.Attempts) > 0 {
			// No fix passed: the author's code goes back in, and the
			// attempts stay in the report for a person to read.
			src = Replace(src, b, original)
			rep.Result = f.Checker.CheckBlock(ctx, Extract(src)[i], run)
		}
		reports = append(reports, rep)
	}
	return src, reports, ctx.Err()
}

const fixSystem = `You repair one code block from a technical article. You get the block and the first error it produced when it was checked (parsed, then run with no network, no package installs and a few seconds of time).

Answer with the corrected code only, in one fenced code block, nothing before or after it. Keep what the block is meant to show and change as little as you can. Do not install packages or download anything; use only the standard library. If the code cannot run without something that is not there (a network service, an API key, a third-party package), rewrite it so that it runs on its own, for example with a small stand-in, and say so in a comment.`

func (f *Fixer) ask(ctx context.Context, b Block, res Result, attempt, of int) (string, error) {
	where := ""
	if res.ErrorLine > 0 {
		where = fmt.Sprintf(" (line %d of the block)", res.ErrorLine-b.CodeLine+1)
	}
	user := fmt.Sprintf("Language: %s\nAttempt %d of %d.\n\nThe block:\n\n```%s\n%s```\n\nThe first error%s:\n\n%s\n", b.Lang, attempt, of, b.Lang, b.Code, where, res.Error)
	stage := f.Stage
	if stage == "" {
		stage = "code-check"
	}
	out, err := agent.Run(ctx, f.Client, nil, []llm.Message{{Role: llm.RoleSystem, Content: fixSystem}, {Role: llm.RoleUser, Content: user}},
		agent.Config{Stage: fmt.Sprintf("%s block %d", stage, b.Index), Model: f.Model, Temperature: f.Temperature, NumCtx: f.NumCtx}, f.Observe)
	if err != nil {
		return "", err
	}
	if out.Incomplete {
		return "", fault.Incomplete(fmt.Sprintf("%s: the fix for block %d was cut off at the output limit", stage, b.Index), stage)
	}
	return codeOf(out.Output), nil
}

// codeOf takes the first fenced block of an answer, or the whole answer
// when it has none.
func codeOf(answer string) string {
	if bs := Extract([]byte(answer)); len(bs) > 0 {
		return bs[0].Code
	}
	return strings.TrimSpace(answer) + "\n"
}
