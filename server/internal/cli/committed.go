package cli

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
)

// askCommitted asks the person at a terminal what to do with outputs
// committed with the workspace, when a run refused to go on without the
// answer: keep them as approved, or regenerate them. It returns the
// answer, or "" when there is no question, nobody to ask, or no answer
// (the refusal then stands, with the commands that answer it).
func askCommitted(env *Env, f *runFlags, err error) string {
	if err == nil || !env.Interactive || f.asJSON || f.committed() != "" {
		return ""
	}
	fe := fault.From(err)
	if !hasAction(fe, fault.Adopt) {
		return ""
	}
	fmt.Fprintf(env.Stderr, "%s\n", fe.Msg)
	fmt.Fprint(env.Stderr, "Keep them as approved [k], regenerate them [r], or stop here [N]? ")
	line, rerr := bufio.NewReader(env.Stdin).ReadString('\n')
	if rerr != nil && line == "" {
		fmt.Fprintln(env.Stderr)
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "k", "keep", "a", "adopt":
		return state.KeepCommitted
	case "r", "regenerate":
		return state.RegenerateCommitted
	}
	return ""
}

func hasAction(f *fault.Error, id fault.ActionID) bool {
	for _, a := range f.Actions {
		if a.ID == id {
			return true
		}
	}
	return false
}
