package codecheck

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// CheckDocument checks every Python and Go block of src in order.
func (c *Checker) CheckDocument(ctx context.Context, src []byte, run bool) []Result {
	var out []Result
	for _, b := range Extract(src) {
		if b.Lang == "" {
			continue
		}
		out = append(out, c.CheckBlock(ctx, b, run))
		if ctx.Err() != nil {
			break
		}
	}
	return out
}

// Check implements verify.CodeChecker: one finding per failing block, at
// the line of its first error, saying what to do.
func (c *Checker) Check(ctx context.Context, out verify.Output, run bool) ([]state.VerifyFinding, error) {
	src := out.Data
	if src == nil {
		var err error
		if src, err = workspace.ReadFileAt(out.Abs, 0); err != nil {
			return nil, fmt.Errorf("unable to read %s: %w", out.Rel, err)
		}
	}
	var fs []state.VerifyFinding
	for _, r := range c.CheckDocument(ctx, src, run) {
		if r.OK {
			continue
		}
		fs = append(fs, Finding(out.Rel, r))
	}
	return fs, ctx.Err()
}

// Finding describes a failing block for a person.
func Finding(file string, r Result) state.VerifyFinding {
	line := r.ErrorLine
	if line == 0 {
		line = r.Line
	}
	what := "does not parse"
	if r.Parsed {
		what = "fails when run"
	}
	return state.VerifyFinding{File: file, Line: line,
		Message: fmt.Sprintf("%s block %d (fence at line %d) %s: %s; fix the code, or mark the block `%s no-run` if it is not meant to run", r.Lang, r.Index, r.Line, what, r.Error, r.Lang)}
}
