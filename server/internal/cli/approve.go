package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/session"
)

func newApproveCmd(env *Env, g *globalFlags) *cobra.Command {
	var force bool
	var model, note string
	cmd := &cobra.Command{
		Use:   "approve STAGE",
		Short: "Accept a stage's output as it is now, so the next stage can run",
		Long: `Approve records that you accept the stage's outputs as they are on disk now
(edit them first: that is what the gate is for). The approval holds the
outputs' hashes, so a later edit needs approving again. Approval is refused
while the stage's Verify checks fail on the current outputs, while the stage
is stale, or after a failed run, unless --force, which needs a --note
saying why the outputs are fine as they are.

The approval keeps who approved (git's user.name, else your account's
name) and the --note, if any: icm history shows both.

A stage run once with icm run --model is approved the same way: the model
a run used is a fact of the run, and the stage is judged by the configured
settings.`,
		Example: "  icm approve 01-scope\n  icm approve 01-scope --note \"checked the figures against the notes\"\n  icm approve 02-research --force --note \"the two sources the check misses are in the inputs\"",
		Args:    stageArg(env, g),
		RunE: func(cmd *cobra.Command, args []string) error {
			// A stage is judged by the configured settings, whatever
			// model its run used: --model changes nothing (older scripts
			// pass it).
			sess, err := openSession(env, g, session.Settings{})
			if err != nil {
				return err
			}
			defer sess.Close()
			a, err := sess.Reviews().Approve(cmd.Context(), args[0], session.ApproveRequest{Force: force, Note: note})
			if err != nil {
				return err
			}
			how := ""
			if a.Adopted {
				how = ", adopted"
			}
			fmt.Fprintf(env.Stdout, "approved %s (%s%s)\n", a.Stage, plural(len(a.Outputs), "output"), how)
			for _, t := range a.Applied {
				fmt.Fprintf(env.Stdout, "  applied the change it proposed to %s\n", t)
			}
			if p, _, err := sess.Status(); err == nil {
				fmt.Fprintln(env.Stdout, nextLine(p, sess.Workspace(), g))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "approve even with failing Verify checks, a stale stage or a failed run (needs --note)")
	cmd.Flags().StringVar(&note, "note", "", "why you accept the outputs, kept with the approval")
	cmd.Flags().StringVar(&model, "model", "", "ignored: a stage is judged by the configured settings, whatever model its run used")
	_ = cmd.Flags().MarkHidden("model")
	return cmd
}
