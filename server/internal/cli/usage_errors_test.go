package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
)

// TestUsageErrorsAreBadRequests: a command line cobra refuses before any
// command runs (an unknown flag or command, a wrong number of arguments)
// is an invalid request that points at the command's help, not a bug in
// icm.
func TestUsageErrorsAreBadRequests(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"run", "--frobnicate"}, {"frobnicate"}, {"version", "extra"}} {
		env := &Env{Stdin: strings.NewReader(""), Stdout: &strings.Builder{}, Stderr: &strings.Builder{},
			Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }}
		err := Run(context.Background(), env, args)
		if k := fault.KindOf(err); k != fault.KindInvalidRequest {
			t.Errorf("icm %s: kind %q (%v), want invalid-request", strings.Join(args, " "), k, err)
			continue
		}
		if f := fault.From(err); !strings.Contains(f.Hint, "help") {
			t.Errorf("icm %s: hint %q does not point at the help", strings.Join(args, " "), f.Hint)
		}
	}
}
