package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/workflow"
)

func newApproveCmd(env *Env, g *globalFlags) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "approve STAGE",
		Short: "Accept a stage's output as it is now, so the next stage can run",
		Long: `Approve records that you accept the stage's outputs as they are on disk now
(edit them first: that is what the gate is for). The approval holds the
outputs' hashes, so a later edit needs approving again. Approval is refused
while the stage's Verify checks fail on the current outputs, while the stage
is stale, or after a failed run, unless --force.`,
		Example: "  icm approve 01-scope",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := openWorkspace(env, g)
			if err != nil {
				return err
			}
			a, err := workflow.Approve(ws, args[0], workflow.ApproveOptions{Force: force, CodeBlocks: codeBlocks()})
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "approved %s (%d output(s))\n", a.Stage, len(a.Outputs))
			p, err := pipelineState(ws)
			if err == nil {
				fmt.Fprintf(env.Stdout, "next: %s\n", p.Next.Message)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "approve even with failing Verify checks, a stale stage or a failed run")
	return cmd
}
