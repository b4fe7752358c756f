package cli

import (
	"errors"
	"fmt"
	"path"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/scaffold"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newNewStageCmd(env *Env, g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "new-stage NAME",
		Short: "Add a numbered stage with a contract skeleton after the last one",
		Long: `New-stage adds a stage after the workspace's last one: a folder numbered
after it (NAME "review" becomes 03-review; a NAME that has a number keeps
it, and a number another stage has is refused with the next free one)
holding a contract skeleton whose input is the previous stage's output,
and a line for it in the routing file's list of stages (CONTEXT.md).`,
		Example: "  icm new-stage review\n  icm new-stage 05-publish -w my-course",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := openWorkspace(env, g)
			if err != nil {
				return err
			}
			res, err := scaffold.NewStage(ws, args[0])
			var taken *scaffold.NumberInUseError
			if errors.As(err, &taken) {
				return fault.InvalidRequest(err.Error()+"; a number is one stage's",
					"use the next free number: "+usedFlags{workspace: g.workspace}.command("new-stage", taken.Free))
			}
			if err != nil {
				return err
			}
			printCreated(env, res)
			fmt.Fprintf(env.Stdout, "  %s (the stage list)\n", workspace.RoutingFile)
			probe := usedFlags{workspace: g.workspace}.command("probe", path.Base(res.Stage))
			fmt.Fprintf(env.Stdout, "\nnext: write the contract's Process, then `%s`\n", probe)
			return nil
		},
	}
}
