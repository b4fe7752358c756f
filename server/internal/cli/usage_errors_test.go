package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
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

// TestNoSuchWorkspaceFolderIsNotFound: -w naming a folder that is not
// there, or a file, is a workspace that does not exist, not a bug in icm.
func TestNoSuchWorkspaceFolderIsNotFound(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(file, []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{filepath.Join(dir, "nowhere"), file} {
		_, errOut, err := runIn(t, dir, nil, "status", "-w", w)
		if k := fault.KindOf(err); k != fault.KindNotFound {
			t.Errorf("icm status -w %s: kind %q, want not-found\n%s", w, k, errOut)
		}
	}
}

// TestAnUnreadableRecordSaysWhatToDo: a stage's record that is not the
// JSON icm wrote (edited by hand, cut short) is a failure with its fix,
// not a bug in icm.
func TestAnUnreadableRecordSaysWhatToDo(t *testing.T) {
	dir := wstest.Write(t, checkedStage)
	rec := filepath.Join(dir, "pipeline", "01-a", ".icm", "run.json")
	if err := os.MkdirAll(filepath.Dir(rec), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := runIn(t, dir, down, "approve", "01-a")
	if k := fault.KindOf(err); k != fault.KindFailed || !strings.Contains(fault.From(err).Hint, "delete the file") {
		t.Errorf("approving over an unreadable record: kind %q, %v\n%s", k, err, errOut)
	}
}
