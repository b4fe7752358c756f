package act

import (
	"context"
	"os"
	"os/exec"
)

// Command is the process a.Argv describes (its program a.Path when set),
// in a.Dir, stopped when ctx
// ends: exec.CommandContext's *exec.Cmd, asked of p first. Refused, the
// command's Err is the *Refusal, so Start, Run and Output return it and
// nothing starts. The caller sets the rest (environment, pipes, process
// attributes) and starts it at once: the permit is asked now, for what
// is about to start.
func Command(ctx context.Context, p Permit, a Action) *exec.Cmd {
	if len(a.Argv) == 0 {
		cmd := exec.CommandContext(ctx, "")
		cmd.Err = &Refusal{Action: a, Err: errNoProgram}
		return cmd
	}
	cmd := exec.CommandContext(ctx, a.path(), a.Argv[1:]...)
	cmd.Args[0] = a.Argv[0]
	cmd.Dir = a.Dir
	Guard(p, a, cmd)
	return cmd
}

// Guard asks p about a for a command a library built (a browser's), and
// sets the command's Err to the refusal, so it never starts. An action
// with no Argv describes the command as it is.
func Guard(p Permit, a Action, cmd *exec.Cmd) {
	if len(a.Argv) == 0 {
		a.Argv, a.Dir = cmd.Args, cmd.Dir
	}
	if err := Ask(p, a); err != nil {
		cmd.Err = err
	}
}

// StartProcess is os.StartProcess of the program of a (a.Path, else
// a.Argv[0], a path) run as a.Argv, asked of p first.
func StartProcess(p Permit, a Action, attr *os.ProcAttr) (*os.Process, error) {
	if len(a.Argv) == 0 {
		return nil, &Refusal{Action: a, Err: errNoProgram}
	}
	if err := Ask(p, a); err != nil {
		return nil, err
	}
	return os.StartProcess(a.path(), a.Argv, attr)
}

// path is the program's file.
func (a Action) path() string {
	if a.Path != "" {
		return a.Path
	}
	return a.Argv[0]
}
