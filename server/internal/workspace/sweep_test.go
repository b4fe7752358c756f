package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestSweepTempsRemovesOnlyTheDeads(t *testing.T) {
	dir := t.TempDir()
	// A process that has ended: its pid is free (until reused, which the
	// test cannot rule out but makes unlikely by asking right away).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	mine := strconv.Itoa(os.Getpid())
	files := map[string]bool{ // name -> swept
		"output/.notes.md.tmp-" + dead + "-123":   true,
		".icm/written/.a.md.tmp-" + dead + "-9":   true,
		".icm/.approval.json.tmp-" + mine + "-77": false, // being written now
		"output/notes.md":                         false,
		"output/.notes.md.tmp-123":                false, // not one of ours
		"output/.hidden":                          false,
	}
	for rel := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := OpenRoot(dir, RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	n, err := root.SweepTemps(filepath.Join(dir, "output"), ".icm", "missing")
	if err != nil || n != 2 {
		t.Fatalf("swept %d, %v; want 2", n, err)
	}
	for rel, swept := range files {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		if swept != os.IsNotExist(err) {
			t.Errorf("%s: swept %v, want %v", rel, os.IsNotExist(err), swept)
		}
	}
}

func TestWritesNameTheirProcess(t *testing.T) {
	pid, ok := tempOwner(tempName("run.json", "42"))
	if !ok || pid != os.Getpid() {
		t.Errorf("tempOwner = %d, %v", pid, ok)
	}
}
