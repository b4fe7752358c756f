package assemble

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestContextIDFollowsWhatIsSent: the same files give the same id, a
// change to an input gives another, and the texts' split matters.
func TestContextIDFollowsWhatIsSent(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	ws, st, c := load(t, dir, "01-scope")
	a, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Stage(ws, st, c, Options{AllowMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID() != b.ID() || !strings.HasPrefix(a.ID(), "ctx-") || len(a.ID()) != 24 {
		t.Fatalf("ids %q and %q: the same files must give one id of the form ctx-HEX", a.ID(), b.ID())
	}
	if err := os.WriteFile(filepath.Join(st.Dir, "input.md"), []byte("Another idea.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, st, c = load(t, dir, "01-scope")
	d, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID() == a.ID() {
		t.Errorf("an input changed and the id stayed %s", a.ID())
	}
	moved := *a
	moved.System, moved.User = a.System+a.User[:1], a.User[1:]
	if moved.ID() == a.ID() {
		t.Error("moving a byte from the user text to the system text kept the id")
	}
}
