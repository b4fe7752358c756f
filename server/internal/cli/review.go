package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newReviewCmd(env *Env, g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "review STAGE",
		Short: "Show a stage's gate: its checklist, checks and what its output rests on",
		Long: `Review prints what a stage's review gate shows, one line each, as PASS,
WARN, FAIL or SKIP with the file and line it is about: the contract's
Review Gate checklist (SKIP: only you can check it), the Verify and rubric
results of the last run, what icm warned of, and the evidence: for each
paragraph, list item and table row of a Markdown output, whether the
stage's inputs and what its tools returned support it, and each URL it
cites that no tool read and each number, date or quotation in no source.

Evidence informs: it never blocks an approval. It is worked out for the
outputs as they are now, so run it again after editing them.`,
		Example: "  icm review 02-research\n  icm review 02-research --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, err := openSession(env, g, session.Settings{})
			if err != nil {
				return err
			}
			defer sess.Close()
			rv, err := sess.Reviews().Review(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(env, rv)
			}
			fmt.Fprintf(env.Stdout, "%s: %s\n", rv.Stage, rv.State)
			printReviewLines(env.Stdout, env, sess.Workspace(), rv.Lines)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// printReviewLines prints gate lines: the result's word, then where and what.
func printReviewLines(out io.Writer, env *Env, ws *workspace.Workspace, lines []report.ReviewLine) {
	for _, l := range lines {
		at := ""
		if l.File != "" {
			at = displayPath(env, ws.Abs(l.File))
			if l.Line > 0 {
				at = fmt.Sprintf("%s:%d", at, l.Line)
			}
			at += ": "
		}
		fmt.Fprintf(out, "%-4s  %s%s\n", report.GateWord(l.Status), at, l.Message)
	}
}
