package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// printGate prints a stage's gate summary under indent, as icm run's gate
// and icm status show it: each line with its word (FAIL, WARN), its items
// under it, and the command a line asks for. The lines are the summary's
// own (report.Gate.Lines); only the paths are written from where the
// person stands.
func printGate(out io.Writer, env *Env, ws *workspace.Workspace, g *report.Gate, flags usedFlags, indent string) {
	place := func(rel string) string { return displayPath(env, ws.Abs(rel)) }
	for _, l := range g.Lines(place) {
		fmt.Fprintf(out, "%s%s %s\n", indent, l.Word, l.Text)
		for _, item := range l.Items {
			fmt.Fprintf(out, "%s    %s\n", indent, item)
		}
		if l.Action == state.ActionRun {
			fmt.Fprintf(out, "%s    %s\n", indent, flags.command("run", "--stage", g.Stage))
		}
	}
}

// gateOf is the gate summary of the run's stage, nil when it has none.
func gateOf(res *report.StageResult) *report.Gate {
	if res == nil {
		return nil
	}
	return res.Gate
}

// printGateWrites prints, under the gate's summary, each change the stage
// at the gate proposes outside output/ as a diff against the file, which
// approving applies.
func printGateWrites(env *Env, sess *session.Session, sum *report.Summary, _ *globalFlags) {
	if sum == nil || sum.Next.Action != state.ActionApprove {
		return
	}
	g := gateOf(resultOf(sum, sum.Next.Stage))
	if g == nil || len(g.Proposed) == 0 {
		return
	}
	out := env.Stdout
	fmt.Fprintln(out, "  The changes it proposes, against each file as it is:")
	diffs, err := sess.Reviews().ProposedDiffs(g.Stage)
	if err != nil {
		fmt.Fprintf(out, "    (the changes cannot be shown: %v)\n", err)
		return
	}
	for _, d := range diffs {
		printIndented(out, d.Text, "    ")
	}
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
