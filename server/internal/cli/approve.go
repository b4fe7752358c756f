package cli

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/session"
)

func newApproveCmd(env *Env, g *globalFlags) *cobra.Command {
	var force bool
	var model string
	cmd := &cobra.Command{
		Use:   "approve STAGE",
		Short: "Accept a stage's output as it is now, so the next stage can run",
		Long: `Approve records that you accept the stage's outputs as they are on disk now
(edit them first: that is what the gate is for). The approval holds the
outputs' hashes, so a later edit needs approving again. Approval is refused
while the stage's Verify checks fail on the current outputs, while the stage
is stale, or after a failed run, unless --force.

A stage run with --model is judged with the same --model: pass it here too
(icm run prints the command), or the changed model makes the stage stale.`,
		Example: "  icm approve 01-scope\n  icm approve 01-draft --model llama3.1:8b",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, err := openSession(env, g, session.Settings{Model: model})
			if err != nil {
				return err
			}
			defer sess.Close()
			a, err := sess.Approve(cmd.Context(), args[0], force)
			if err != nil {
				return withRanModel(sess, args[0], model, err)
			}
			fmt.Fprintf(env.Stdout, "approved %s (%s)\n", a.Stage, plural(len(a.Outputs), "output"))
			if p, _, err := sess.Status(); err == nil {
				fmt.Fprintln(env.Stdout, nextLine(p, sess.Workspace(), g))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "approve even with failing Verify checks, a stale stage or a failed run")
	cmd.Flags().StringVar(&model, "model", "", "judge the stage as runs with this model override do (the --model it ran with)")
	return cmd
}

// withRanModel adds, to a refusal because the stage is stale only for its
// model, the fix a person most likely wants: approving it under the model
// it ran with (they ran it with --model and typed the approval without).
func withRanModel(sess *session.Session, stage, model string, err error) error {
	if model != "" || fault.KindOf(err) != fault.Stale {
		return err
	}
	p, _, serr := sess.Status()
	if serr != nil {
		return err
	}
	for _, s := range p.Stages {
		if s.Stage != stage || s.RanWith == "" {
			continue
		}
		f := *fault.From(err)
		f.Hint = fmt.Sprintf("it ran with %s: approve it judged under that model, or run it again with the model the settings name", s.RanWith)
		f.Actions = append([]fault.Action{{ID: fault.Approve, Stage: s.Stage, Model: s.RanWith}}, f.Actions...)
		return &f
	}
	return err
}
