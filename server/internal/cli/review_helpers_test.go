package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/usersettings"
)

// runAsUser runs a command line in dir as a person at a terminal sees it:
// stdout, and stderr with the error rendered the way Main renders it.
func runAsUser(t *testing.T, dir string, vars map[string]string, args ...string) (string, string, int) {
	t.Helper()
	return runAnswering(t, dir, vars, "", false, args...)
}

// runAnswering is runAsUser with what the person types on stdin, and,
// with interactive, a person at a terminal to answer what icm asks.
func runAnswering(t *testing.T, dir string, vars map[string]string, stdin string, interactive bool, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Interactive: interactive,
		Getenv: func(k string) string {
			if v, ok := vars[k]; ok || k != usersettings.ConfigDirEnv {
				return v
			}
			// The test's config folder (trust records), never the person's.
			return os.Getenv(k)
		}, Getwd: func() (string, error) { return dir, nil }}
	code := exitCode(env, Run(context.Background(), env, args))
	return out.String(), errb.String(), code
}
