//go:build unix

package act

import "syscall"

// Exec replaces this process with the program of a (a.Path, else
// a.Argv[0], a path) run as a.Argv with the environment env, asked of p
// first: it returns only on failure.
func Exec(p Permit, a Action, env []string) error {
	if len(a.Argv) == 0 {
		return &Refusal{Action: a, Err: errNoProgram}
	}
	if err := Ask(p, a); err != nil {
		return err
	}
	return syscall.Exec(a.path(), a.Argv, env)
}

// ForkExec starts the program of a (a.Path, else a.Argv[0], a path) as
// a.Argv with attr, asked of p first, and returns its pid.
func ForkExec(p Permit, a Action, attr *syscall.ProcAttr) (int, error) {
	if len(a.Argv) == 0 {
		return 0, &Refusal{Action: a, Err: errNoProgram}
	}
	if err := Ask(p, a); err != nil {
		return 0, err
	}
	return syscall.ForkExec(a.path(), a.Argv, attr)
}
