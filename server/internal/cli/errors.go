package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/icm-tool/icm/server/internal/fault"
)

// usedFlags are the flags a command ran with that the commands an error
// suggests must repeat: the same workspace, and for running the stage
// again the same model override.
type usedFlags struct {
	workspace string
	model     string
	// name is the command that failed ("run"), for a fix that repeats it.
	name string
}

// flaggedError carries the flags a failed command ran with to Main, which
// renders the error.
type flaggedError struct {
	err   error
	flags usedFlags
}

func (e *flaggedError) Error() string { return e.err.Error() }
func (e *flaggedError) Unwrap() error { return e.err }

// suggestion is one fix as the CLI offers it: what it does, and the
// command or place that does it.
type suggestion struct {
	what, how string
}

// printError writes an error the way a person at a terminal reads it: what
// went wrong, the hint, and one line per fix with the command to type.
func printError(env *Env, w io.Writer, err error) {
	var flags usedFlags
	var fe *flaggedError
	if errors.As(err, &fe) {
		flags = fe.flags
	}
	f := fault.From(err)
	fmt.Fprintf(w, "icm: %s\n", f.Msg)
	if f.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", f.Hint)
	}
	if f.Detail != "" {
		printIndented(w, f.Detail, "  ")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, a := range typoFirst(f.Actions) {
		if s, ok := suggest(env, a, flags); ok {
			fmt.Fprintf(tw, "  %s:\t%s\n", s.what, s.how)
		}
		if a.ID == fault.TrustWorkspace && flags.name != "" {
			fmt.Fprintf(tw, "  %s:\t%s\n", "or trust it for this command only (CI)", flags.command(flags.name, "--trust"))
		}
	}
	tw.Flush()
}

// typoFirst puts the installed model a missing one was probably meant to
// be ahead of the other fixes: at a terminal a typo is the likely cause,
// and pulling the misspelt name the wrong first step.
func typoFirst(actions []fault.Action) []fault.Action {
	for i, a := range actions {
		if a.ID == fault.ChooseModel && a.Model != "" && i > 0 {
			out := append([]fault.Action{a}, actions[:i]...)
			return append(out, actions[i+1:]...)
		}
	}
	return actions
}

// command is an icm command line with the workspace flag the failed
// command had, quoted for a shell.
func (flags usedFlags) command(args ...string) string {
	if flags.workspace != "" {
		args = append(args, "-w", flags.workspace)
	}
	quoted := make([]string, len(args))
	for i, s := range args {
		quoted[i] = shellQuote(s)
	}
	return "icm " + strings.Join(quoted, " ")
}

// withModel adds the run's model override, for the commands that run the
// failed stage again: the same run, the same model.
func (flags usedFlags) withModel(args ...string) []string {
	if flags.model != "" {
		args = append(args, "--model", flags.model)
	}
	return args
}

// suggest renders one action as a command with the flags it needs.
func suggest(env *Env, a fault.Action, flags usedFlags) (suggestion, bool) {
	icm, withModel := flags.command, flags.withModel
	switch a.ID {
	case fault.Approve:
		// A stage is judged by the configured settings: approving needs
		// no model, whatever the run used.
		return suggestion{"approve it as it is", icm("approve", a.Stage)}, true
	case fault.ApproveAnyway:
		return suggestion{"approve it anyway", icm("approve", a.Stage, "--force", "--note", "REASON")}, true
	case fault.RunStage:
		return suggestion{"run it", icm(withModel("run", "--stage", a.Stage)...)}, true
	case fault.RunAnyway:
		return suggestion{"run it and overwrite", icm(withModel("run", "--stage", a.Stage, "--force")...)}, true
	case fault.Adopt:
		return suggestion{"keep them as approved", icm(withModel(runArgs(a.Stage, "--adopt")...)...)}, true
	case fault.Regenerate:
		return suggestion{"regenerate them", icm(withModel(runArgs(a.Stage, "--regenerate")...)...)}, true
	case fault.OpenFile:
		where := displayPath(env, a.File)
		if a.Line > 0 {
			where = fmt.Sprintf("%s:%d", where, a.Line)
		}
		return suggestion{"see", where}, true
	case fault.PullModel:
		return suggestion{"pull it", icm("pull", a.Model)}, true
	case fault.StartServer:
		if a.Command == "" {
			return suggestion{"start the server", "the model server at " + a.URL}, a.URL != ""
		}
		return suggestion{"start the server", a.Command}, true
	case fault.SetServer:
		return suggestion{"or use another server", "OLLAMA_HOST=URL, or [model] base_url in config.toml"}, true
	case fault.ChooseModel:
		if a.Model != "" {
			return suggestion{"use the installed model", fmt.Sprintf("--model %s, or [model] name = %q in config.toml", shellQuote(a.Model), a.Model)}, true
		}
		return suggestion{"or use another model", "--model NAME, or [model] name in config.toml"}, true
	case fault.ShowDiff:
		return suggestion{"compare", icm("history", "--diff", a.Stage)}, true
	case fault.CompareModel:
		return suggestion{"see the edit", icm("history", "--diff", a.Stage, "--written")}, true
	case fault.RunCheck:
		return suggestion{"list every problem", icm("check")}, true
	case fault.InstallServer:
		how := a.URL + ", then start it (ollama serve)"
		if a.Model != "" {
			how += " and " + icm("pull", a.Model)
		}
		return suggestion{"install Ollama", how}, a.URL != ""
	case fault.TryDemo:
		cmd := a.Command
		if cmd == "" {
			cmd = "icm demo"
		}
		return suggestion{"or try it without a model", cmd + " (canned answers)"}, true
	case fault.TrustWorkspace:
		return suggestion{"see what it would be allowed, and trust it", icm("trust")}, true
	}
	return suggestion{}, false
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runArgs is `icm run` with flag, for stage when the run was for one.
func runArgs(stage, flag string) []string {
	if stage == "" {
		return []string{"run", flag}
	}
	return []string{"run", "--stage", stage, flag}
}

// printIndented prints text with each line indented.
func printIndented(out io.Writer, text, indent string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(out, "%s%s\n", indent, line)
	}
}
