package cli

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/session"
)

// openSession opens the workspace named by -w (or around the current
// folder) as a session with the command's settings; problems that do not
// stop the command are printed as warnings.
func openSession(env *Env, g *globalFlags, set session.Settings) (*session.Session, error) {
	ws, err := openWorkspace(env, g)
	if err != nil {
		return nil, err
	}
	return session.Open(ws, sessionOptions(env, g, set)), nil
}

// sessionOptions are the options every command opens its session with.
func sessionOptions(env *Env, g *globalFlags, set session.Settings) session.Options {
	return session.Options{
		Settings: set,
		Getenv:   env.Getenv,
		Self:     env.Self,
		Version:  Version,
		Warn:     func(msg string) { fmt.Fprintf(env.Stderr, "warning: %s\n", msg) },
		Trust:    session.TrustOptions{Explicit: g.trust},
	}
}
