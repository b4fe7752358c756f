//go:build unix

package act

import "syscall"

// Exec replaces this process with a.Argv (a.Argv[0] a path) and the
// environment env, asked of p first: it returns only on failure.
func Exec(p Permit, a Action, env []string) error {
	if len(a.Argv) == 0 {
		return &Refusal{Action: a, Err: errNoProgram}
	}
	if err := Ask(p, a); err != nil {
		return err
	}
	return syscall.Exec(a.Argv[0], a.Argv, env)
}

// ForkExec starts a.Argv (a.Argv[0] a path) with attr, asked of p
// first, and returns its pid.
func ForkExec(p Permit, a Action, attr *syscall.ProcAttr) (int, error) {
	if len(a.Argv) == 0 {
		return 0, &Refusal{Action: a, Err: errNoProgram}
	}
	if err := Ask(p, a); err != nil {
		return 0, err
	}
	return syscall.ForkExec(a.Argv[0], a.Argv, attr)
}
