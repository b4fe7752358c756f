package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// An approval says who approved and why: icm approve --note keeps the
// note and the reviewer (git's user name, else the account) with it, and
// icm history shows both; approving past failing checks without a note
// is refused, saying what to add.
func TestApproveKeepsTheReviewerAndTheNote(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("# Trip\n\n## Route\nCoast road.\n"))
	dir := wstest.Write(t, rubricWorkspace)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\teditor = vi\n[user]\n\tname = Ann Reviewer\n\temail = ann@example.org\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"OLLAMA_HOST": srv.URL(), "HOME": home, "USER": "ann"}
	if out, errOut, code := runAsUser(t, dir, vars, "run"); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	_, errOut, code := runAsUser(t, dir, vars, "approve", "01-trip", "--force")
	if code == 0 || !strings.Contains(errOut, "needs a note") || !strings.Contains(errOut, `icm approve 01-trip --force --note`) {
		t.Fatalf("approve --force without a note: code %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline/01-trip/.icm/approval.json")); err == nil {
		t.Fatal("a refused approval was recorded")
	}
	out, errOut, code := runAsUser(t, dir, vars, "approve", "01-trip", "--force", "--note", "Nights are planned on paper.")
	if code != 0 {
		t.Fatalf("approve --force --note: %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "pipeline/01-trip/.icm/approval.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"reviewer": "Ann Reviewer"`, `"note": "Nights are planned on paper."`, `"forced": true`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("approval lacks %s:\n%s", want, data)
		}
	}
	out, _, _ = runAsUser(t, dir, vars, "history")
	if !strings.Contains(out, "approved by Ann Reviewer, past failing checks: Nights are planned on paper.") {
		t.Errorf("history does not show the approval:\n%s", out)
	}
	out, _, _ = runAsUser(t, dir, vars, "history", "--run", "latest")
	if !strings.Contains(out, "01-trip approved by Ann Reviewer, past failing checks: Nights are planned on paper.") {
		t.Errorf("the run's record does not show the approval:\n%s", out)
	}

	// Without a git user name, the account approves.
	if err := os.Remove(filepath.Join(home, ".gitconfig")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pipeline/01-trip/output/trip.md"), []byte("# Trip\n\n## Route\nCoast.\n\n## Nights\nInn.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runAsUser(t, dir, vars, "approve", "01-trip"); code != 0 {
		t.Fatalf("approve: %d\n%s%s", code, out, errOut)
	}
	data, _ = os.ReadFile(filepath.Join(dir, "pipeline/01-trip/.icm/approval.json"))
	if !strings.Contains(string(data), `"reviewer": "ann"`) {
		t.Errorf("approval without a git name:\n%s", data)
	}
}
