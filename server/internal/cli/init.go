package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/scaffold"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newInitCmd(env *Env) *cobra.Command {
	var from, stage, model, title string
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a new workspace, or copy another workspace's factory",
		Long: `Init creates a workspace in DIR (default: the current folder), which must be
new or empty: CLAUDE.md (identity), CONTEXT.md (routing), config.toml,
_config/style.md (reference material), one stage with a commented contract
and an input to work on, and pipeline/proposed/.

With --from WORKSPACE it copies that workspace's factory instead: its
contracts, routing, identity, config.toml, MCP server files, _config/ and
each stage's references, schemas and scripts. It leaves out outputs, run
records and history/, and puts a short note where each working input
(a layer 4 file no stage writes) was, to be replaced with new material.`,
		Example: "  icm init my-course\n  icm init course-go --from workspaces/course-research\n  icm init --stage outline --model llama3.1:8b",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, err := env.Getwd()
			if err != nil {
				return err
			}
			dir := cwd
			if len(args) == 1 {
				dir = args[0]
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(cwd, dir)
				}
			}
			var res *scaffold.Result
			if from != "" {
				if !filepath.IsAbs(from) {
					from = filepath.Join(cwd, from)
				}
				src, err := workspace.Load(from, cwd)
				if err != nil {
					return err
				}
				if res, err = scaffold.CopyFactory(src, dir); err != nil {
					return err
				}
			} else if res, err = scaffold.Init(dir, scaffold.InitOptions{Title: title, Stage: stage, Model: model}); err != nil {
				return err
			}
			printCreated(env, res)
			shown := displayPath(env, res.Root)
			fmt.Fprintf(env.Stdout, "\nnext: edit the contracts and inputs, then\n  icm check -w %s\n  icm run -w %s\n", shown, shown)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&from, "from", "", "copy the factory of this workspace instead of starting from icm's templates")
	fl.StringVar(&stage, "stage", "", `name of the first stage (default "draft", made 01-draft)`)
	fl.StringVar(&model, "model", "", "model for config.toml (default "+scaffold.DefaultModel+")")
	fl.StringVar(&title, "title", "", "what the work is called in CLAUDE.md (default: from the folder name)")
	cmd.MarkFlagsMutuallyExclusive("from", "stage")
	cmd.MarkFlagsMutuallyExclusive("from", "model")
	cmd.MarkFlagsMutuallyExclusive("from", "title")
	return cmd
}

func printCreated(env *Env, res *scaffold.Result) {
	fmt.Fprintf(env.Stdout, "created in %s:\n", displayPath(env, res.Root))
	for _, rel := range res.Created {
		fmt.Fprintf(env.Stdout, "  %s\n", rel)
	}
}
