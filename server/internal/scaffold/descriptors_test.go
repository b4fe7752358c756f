package scaffold

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"testing"
)

// TestScaffoldingClosesWhatItOpens: each new workspace is written through
// a Root of its folder; making workspaces over and over, with the garbage
// collector off so no finalizer closes one, leaves the descriptor count
// where it was.
func TestScaffoldingClosesWhatItOpens(t *testing.T) {
	count := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd to count descriptors in")
		}
		return len(entries)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	base := t.TempDir()
	before := count()
	for i := range 10 {
		if _, err := Init(filepath.Join(base, "w"+strconv.Itoa(i)), InitOptions{Title: "W"}); err != nil {
			t.Fatal(err)
		}
	}
	if after := count(); after > before {
		t.Errorf("%d descriptors open after making 10 workspaces, %d before", after, before)
	}
}
