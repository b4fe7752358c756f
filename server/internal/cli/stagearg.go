package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/icm-tool/icm/server/internal/fault"
	sugg "github.com/icm-tool/icm/server/internal/suggest"
)

// stageArg is the Args check of a command that takes one stage: without
// one it says so and lists the workspace's stages to choose from, rather
// than counting arguments.
func stageArg(env *Env, g *globalFlags) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 1:
			return nil
		case len(args) > 1:
			return fault.InvalidRequest(fmt.Sprintf("icm %s takes one stage, but was given %d: %s", cmd.Name(), len(args), strings.Join(args, " ")),
				fmt.Sprintf("name one stage: icm %s STAGE", cmd.Name()))
		}
		var names []string
		if ws, err := openWorkspace(env, g); err == nil {
			for _, st := range ws.Stages {
				names = append(names, st.Name)
			}
			ws.Close()
		}
		if len(names) == 0 {
			return fault.InvalidRequest(fmt.Sprintf("icm %s needs a stage: name the stage to %s", cmd.Name(), cmd.Name()),
				fmt.Sprintf("icm %s STAGE, with a stage folder's name such as 01-draft", cmd.Name()))
		}
		return fault.InvalidRequest(fmt.Sprintf("icm %s needs a stage: name the stage to %s, one of %s", cmd.Name(), cmd.Name(), strings.Join(names, ", ")),
			fmt.Sprintf("icm %s %s", cmd.Name(), names[0]))
	}
}

// flagError is the root's flag error: an unknown flag that is a slip of
// one the command has gets that flag as the fix.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	bad, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return err
	}
	bad, _, _ = strings.Cut(bad, "=")
	var flags []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { flags = append(flags, f.Name) })
	near := sugg.Nearest(bad, flags)
	if near == "" {
		return fault.InvalidRequest(msg, fmt.Sprintf("icm %s --help lists its flags", cmd.Name()))
	}
	return fault.InvalidRequest(fmt.Sprintf("%s: did you mean --%s?", msg, near), fmt.Sprintf("icm %s --help lists its flags", cmd.Name()))
}
