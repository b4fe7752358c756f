package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// With nobody to ask, a script answers the question about committed
// outputs with a flag, for one stage as for the whole run: --regenerate
// runs the stage over them (the committed file kept in history), --adopt
// keeps them as approved and calls no model, and the two together are no
// answer.
func TestCommittedOutputsAnsweredByFlags(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("# Menu\n\nSoup on Monday.\n"))
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}

	dir := wstest.Write(t, committedMenus)
	out, errOut, code := runAsUser(t, dir, vars, "run", "--stage", "01-menu", "--regenerate")
	if code != 0 {
		t.Fatalf("run --stage 01-menu --regenerate: %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "stages/01-menu/output/menu.md")); string(data) != "# Menu\n\nSoup on Monday.\n" {
		t.Errorf("--regenerate did not run the stage: %q", data)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "history/versions/01-menu/*-committed/menu.md"))
	if len(kept) != 1 {
		t.Errorf("the committed file was not kept in history: %v", kept)
	}
	if _, err := os.Stat(filepath.Join(dir, "stages/02-shop/output/list.md")); err == nil {
		t.Error("a run of one stage ran the next one too")
	}

	dir = wstest.Write(t, committedMenus)
	calls := len(srv.ChatRequests())
	out, errOut, code = runAsUser(t, dir, vars, "run", "--stage", "01-menu", "--adopt")
	if code != 0 || !strings.Contains(out, "Kept as approved (adopted") {
		t.Fatalf("run --stage 01-menu --adopt: %d\n%s%s", code, out, errOut)
	}
	if n := len(srv.ChatRequests()) - calls; n != 0 {
		t.Errorf("--adopt called the model %d times", n)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "stages/01-menu/output/menu.md")); string(data) != "# The author's menu\n" {
		t.Errorf("the adopted output changed: %q", data)
	}
	if status, _, _ := runAsUser(t, dir, vars, "status"); !strings.Contains(status, "adopted") {
		t.Errorf("status does not say 01-menu was adopted:\n%s", status)
	}

	_, errOut, code = runAsUser(t, wstest.Write(t, committedMenus), vars, "run", "--adopt", "--regenerate")
	if code == 0 || !strings.Contains(errOut, "two answers to one question") {
		t.Errorf("--adopt with --regenerate: %d\n%s", code, errOut)
	}
}
