package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// printGateWrites prints, under the review gate's lines, what the stage
// at the gate wrote against what its contract declares: the outputs
// still missing, the files written without a declaration, and each
// change proposed outside output/ as a diff against the file, which
// approving applies.
func printGateWrites(env *Env, sess *session.Session, sum *report.Summary, g *globalFlags) {
	if sum == nil || sum.Next.Action != state.ActionApprove {
		return
	}
	res := resultOf(sum, sum.Next.Stage)
	if res == nil || res.Manual != "" {
		return
	}
	out, flags := env.Stdout, usedFlags{workspace: g.workspace}
	if len(res.Missing) > 0 {
		fmt.Fprintf(out, "  Not written: %s; run it again for the rest: %s\n", strings.Join(res.Missing, ", "), flags.command("run", "--stage", res.Stage))
	}
	if len(res.Undeclared) > 0 {
		fmt.Fprintf(out, "  The contract names no output file; the model wrote: %s\n", strings.Join(displayAll(env, sess.Workspace(), res.Undeclared), ", "))
	}
	if len(res.Proposed) == 0 {
		return
	}
	fmt.Fprintf(out, "  Proposed changes outside output/, applied only when you approve (%s):\n", strings.Join(proposedTargets(res.Proposed), ", "))
	diffs, err := sess.Reviews().ProposedDiffs(res.Stage)
	if err != nil {
		fmt.Fprintf(out, "    (the changes cannot be shown: %v)\n", err)
		return
	}
	for _, d := range diffs {
		printIndented(out, d.Text, "    ")
	}
}

func proposedTargets(ps []report.Proposed) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Target
		if p.New {
			out[i] += " (new)"
		}
	}
	return out
}

// printManual says a stage is the person's step: why, what to do in the
// contract's words, and how to say it is done.
func printManual(out io.Writer, res *report.StageResult, flags usedFlags) {
	fmt.Fprintf(out, "Manual step: %s is yours to do (%s); icm called no model and wrote nothing.\n", res.Stage, res.ManualWhy)
	fmt.Fprintln(out, "  What its contract says to do:")
	printIndented(out, res.Manual, "    ")
	fmt.Fprintf(out, "  When it is done:\n  %s\n", flags.command("approve", res.Stage))
}

// printCommitted says what the run did with outputs committed with the
// workspace.
func printCommitted(out io.Writer, sum *report.Summary) {
	if len(sum.Adopted) > 0 {
		fmt.Fprintf(out, "Kept as approved (adopted; committed with the workspace, not made by icm): %s\n", strings.Join(sum.Adopted, ", "))
	}
	if len(sum.Regenerating) > 0 {
		fmt.Fprintf(out, "To regenerate (the committed files are kept in history/versions/ as each runs): %s\n", strings.Join(sum.Regenerating, ", "))
	}
}
