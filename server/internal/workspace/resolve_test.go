package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk("pipeline/01-a")
	mk("_config")
	os.WriteFile(filepath.Join(root, "_config/a.md"), []byte("a"), 0o644)
	os.Symlink(outside, filepath.Join(root, "pipeline/01-a/out"))              // folder link out
	os.Symlink("../../_config", filepath.Join(root, "pipeline/01-a/cfg"))      // relative link in
	os.Symlink("/etc/passwd", filepath.Join(root, "pipeline/01-a/pw"))         // file link out
	os.Symlink("cfg/../../../..", filepath.Join(root, "pipeline/01-a/sneaky")) // climbs out through a link
	os.Symlink("loop2", filepath.Join(root, "pipeline/01-a/loop1"))            // a loop
	os.Symlink("loop1", filepath.Join(root, "pipeline/01-a/loop2"))
	os.Symlink(filepath.Join(root, "_config"), filepath.Join(root, "pipeline/01-a/abs-in")) // absolute, but inside
	disk, err := OpenRoot(root, RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	ws := &Workspace{Root: root, Disk: disk}
	base := filepath.Join(root, "pipeline/01-a")
	tests := []struct {
		p      string
		escape bool
		err    bool
	}{
		{"../../_config/a.md", false, false},
		{"not/yet/written.md", false, false},
		{"cfg/a.md", false, false},
		{"abs-in/a.md", false, false},
		{"../../../x", true, false},
		{"/etc/passwd", true, false},
		{"C:/x", true, false},
		{"out/secret.md", true, false},
		{"pw", true, false},
		{"sneaky/etc", true, false},
		{"loop1/x", false, true},
	}
	for _, tt := range tests {
		got, err := ws.Resolve(base, tt.p)
		var esc *EscapeError
		isEsc := errors.As(err, &esc)
		switch {
		case tt.escape && !isEsc:
			t.Errorf("Resolve(%q) = %q, %v; want an escape error", tt.p, got, err)
		case tt.err && (err == nil || isEsc):
			t.Errorf("Resolve(%q) = %q, %v; want a plain error", tt.p, got, err)
		case !tt.escape && !tt.err && err != nil:
			t.Errorf("Resolve(%q): %v", tt.p, err)
		}
	}
}
