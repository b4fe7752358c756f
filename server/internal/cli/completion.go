package cli

import (
	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/session"
)

// addCompletions gives the commands that take a stage name dynamic shell
// completion of the workspace's stages (with their state as the
// description): icm run --stage, icm approve, icm probe and icm history
// --diff. The completion command itself is cobra's (bash, zsh, fish,
// powershell), which asks the binary for these at each TAB.
func addCompletions(root *cobra.Command, env *Env, g *globalFlags) {
	stages := func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return stageCompletions(env, g), cobra.ShellCompDirectiveNoFileComp
	}
	firstArg := func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return stages(cmd, args, toComplete)
	}
	for _, c := range root.Commands() {
		switch c.Name() {
		case "approve", "probe":
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = firstArg
			}
		case "run":
			_ = c.RegisterFlagCompletionFunc("stage", stages)
		case "history":
			_ = c.RegisterFlagCompletionFunc("diff", stages)
		}
	}
}

// stageCompletions lists the workspace's stages; nothing when there is no
// workspace here (completion must never print an error).
func stageCompletions(env *Env, g *globalFlags) []cobra.Completion {
	ws, err := openWorkspace(env, g)
	if err != nil {
		return nil
	}
	sess := session.Open(ws, session.Options{Getenv: env.Getenv})
	defer sess.Close()
	desc := map[string]string{}
	if p, _, err := sess.Status(); err == nil {
		for _, s := range p.Stages {
			desc[s.Stage] = string(s.Status)
		}
	}
	var out []cobra.Completion
	for _, st := range ws.Stages {
		if d := desc[st.Name]; d != "" {
			out = append(out, cobra.CompletionWithDesc(st.Name, d))
		} else {
			out = append(out, st.Name)
		}
	}
	return out
}
