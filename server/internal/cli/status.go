package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

func newStatusCmd(env *Env, g *globalFlags) *cobra.Command {
	var asJSON bool
	var model string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show each stage's state and what to do next",
		Long: `Status derives every stage's state from the files in the workspace: pending
(not run), awaiting review (output written, not approved), approved, stale (a
file it read changed since it ran or was approved), failed, has errors (its
contract has errors, so it cannot run), config error (config.toml cannot be
read, or names a model the model server lacks, which status asks it), or
running (a run works on it now). A re-run that failed never changes
what was approved: the stage stays approved and says "last re-run failed"
with the reason. The last line says what to do next, and what stands
before it: a run going, the workspace's trust, a model server that does
not answer. The words are the ones
the editor shows. A stage run once with icm run --model is judged by the
configured settings like any other, and says which model wrote it
("approved · ran with X (configured: Y)").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, err := openSession(env, g, session.Settings{})
			if err != nil {
				return err
			}
			defer sess.Close()
			ws := sess.Workspace()
			// What the model server has: a model it lacks is a config
			// error, and a server that does not answer holds up the next
			// model stage.
			p, rep, err := sess.StatusWith(sess.ModelServer().Facts(cmd.Context()))
			if err != nil {
				return err
			}
			if asJSON {
				// The gate summary of each stage awaiting review, as the
				// text's gate lines say it.
				var gates []*report.Gate
				for _, st := range p.Stages {
					if g := session.GateAt(rep, st); g != nil {
						gates = append(gates, g)
					}
				}
				return writeJSON(env, struct {
					Workspace string `json:"workspace"`
					*state.PipelineState
					Gates []*report.Gate `json:"gates,omitempty"`
				}{ws.Root, p, gates})
			}
			// Only the stage and status columns are aligned: the reason,
			// as long as it needs to be, ends the line without padding.
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			for _, s := range p.Stages {
				// The same words the editor's lens, view and status bar
				// show, running for the stage a run works on now.
				f := state.FaceOf(s, false, "")
				if s.Face != nil {
					f = *s.Face
				}
				line := f.Detail
				if s.LastRun != nil {
					line += " (ran " + human.Time(s.LastRun.Local(), time.Now()) + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Stage, f.Label, strings.TrimSpace(line))
				if s.VerifyFailed && s.Record != nil {
					// What Verify found, under the reason, so the person
					// knows what to fix before approving.
					for _, v := range s.Record.Verify {
						for _, vf := range v.Findings {
							fmt.Fprintf(tw, "\t\t  %s: %s\n", loc(vf), vf.Message)
						}
					}
				}
				if s.RubricFailed && s.Record != nil {
					printRubric(tw, s.Record.Rubric, "\t\t  ")
				}
				// The gate's summary, as icm run printed it.
				printGate(tw, env, ws, session.GateAt(rep, s), usedFlags{workspace: g.workspace}, "\t\t  ")
			}
			tw.Flush()
			printTrustLine(env, sess)
			fmt.Fprintln(env.Stdout, nextLine(p, ws, g))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the states as JSON")
	cmd.Flags().StringVar(&model, "model", "", "ignored: a stage is judged by the configured settings, whatever model its run used")
	_ = cmd.Flags().MarkHidden("model")
	return cmd
}
