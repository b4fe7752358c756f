package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tree makes a workspace folder and a folder outside it, with a secret
// file outside, and opens the workspace as a Root.
func tree(t *testing.T, opts RootOptions) (r *Root, dir, outside string) {
	t.Helper()
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	outside, _ = filepath.EvalSymlinks(t.TempDir())
	must(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "a/b"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a/b/in.md"), []byte("inside"), 0o644))
	r, err := OpenRoot(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, dir, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRootReadsInsideAndFollowsLinksThatStayInside(t *testing.T) {
	r, dir, _ := tree(t, RootOptions{})
	must(t, os.Symlink("b/in.md", filepath.Join(dir, "a/rel")))
	must(t, os.Symlink(filepath.Join(dir, "a/b"), filepath.Join(dir, "abs-in"))) // absolute, but inside
	for _, p := range []string{"a/b/in.md", filepath.Join(dir, "a/b/in.md"), "a/rel", "abs-in/in.md", "a/./b/../b/in.md"} {
		data, err := r.ReadFile(p)
		if err != nil || string(data) != "inside" {
			t.Errorf("ReadFile(%s) = %q, %v", p, data, err)
		}
	}
}

// Every way out is refused with an error naming the link, and nothing
// outside is read.
func TestRootRefusesWhatLeaves(t *testing.T) {
	r, dir, outside := tree(t, RootOptions{})
	must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "a/file-out")))
	must(t, os.Symlink(outside, filepath.Join(dir, "a/dir-out")))
	must(t, os.Symlink("../../..", filepath.Join(dir, "a/b/climb")))
	for _, tc := range []struct{ p, link string }{
		{"a/file-out", "a/file-out"},
		{"a/dir-out/secret.md", "a/dir-out"},
		{"a/b/climb/" + filepath.Base(outside) + "/secret.md", "a/b/climb"},
		{"../x", ""},
		{filepath.Join(outside, "secret.md"), ""},
	} {
		data, err := r.ReadFile(tc.p)
		var esc *EscapeError
		if !errors.As(err, &esc) || esc.Link != tc.link {
			t.Errorf("ReadFile(%s) = %q, %v; want an escape through %q", tc.p, data, err, tc.link)
		}
		if tc.link != "" && !strings.Contains(err.Error(), tc.link) {
			t.Errorf("the error does not name the link: %v", err)
		}
	}
}

func TestRootReadsOnlyRegularFilesWithinTheCap(t *testing.T) {
	r, dir, _ := tree(t, RootOptions{MaxRead: 1 << 10})
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var nr *NotRegularError
	if _, err := r.ReadFile("pipe"); !errors.As(err, &nr) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("a FIFO: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "big"), nil, 0o644))
	must(t, os.Truncate(filepath.Join(dir, "big"), 4<<10))
	var big *TooLargeError
	if _, err := r.ReadFile("big"); !errors.As(err, &big) || big.Size != 4<<10 || !strings.Contains(err.Error(), "too large (4 KB") {
		t.Errorf("a file over the cap: %v", err)
	}
	if _, err := r.ReadFileMax("big", 8<<10); err != nil {
		t.Errorf("with a cap of its own: %v", err)
	}
	if _, err := r.ReadFile("a"); err == nil || Refused(err) {
		t.Errorf("a folder: %v", err)
	}
	// Listing a FIFO as a folder does not wait for a writer either.
	done := make(chan error, 1)
	go func() { _, err := r.ReadDir("pipe"); done <- err }()
	select {
	case err := <-done:
		if !errors.As(err, &nr) || err.Error() != "pipe is a named pipe (FIFO), not a folder" {
			t.Errorf("listing a FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("listing a FIFO still blocked after 10 s")
	}
}

func TestRootLinksLoopsAreCut(t *testing.T) {
	r, dir, _ := tree(t, RootOptions{})
	must(t, os.Symlink("l2", filepath.Join(dir, "l1")))
	must(t, os.Symlink("l1", filepath.Join(dir, "l2")))
	var loop *LoopError
	if _, err := r.ReadFile("l1"); !errors.As(err, &loop) {
		t.Errorf("a loop: %v", err)
	}
	if _, err := r.Resolve("l1/x"); !errors.As(err, &loop) {
		t.Errorf("resolving a loop: %v", err)
	}
}

// Writes go through the tree too: a folder on the way that leads out is
// refused, a final link is replaced rather than written through, and a
// read-only tree writes nothing.
func TestRootWritesStayInside(t *testing.T) {
	r, dir, outside := tree(t, RootOptions{})
	must(t, os.Symlink(outside, filepath.Join(dir, "out")))
	must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "a/link.md")))
	var esc *EscapeError
	if err := r.WriteFile("out/new.md", []byte("x"), 0o644); !errors.As(err, &esc) {
		t.Errorf("writing through a folder linked out: %v", err)
	}
	if err := r.MkdirAll("out/sub"); !errors.As(err, &esc) {
		t.Errorf("making a folder through a link out: %v", err)
	}
	if _, err := r.OpenFile("out/trace.jsonl", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); !errors.As(err, &esc) {
		t.Errorf("appending through a link out: %v", err)
	}
	must(t, r.WriteFile("a/link.md", []byte("new"), 0o644))
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(data) != "secret" {
		t.Errorf("the file outside now holds %q", data)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the folder outside holds %d entries", len(entries))
	}
	if fi, err := os.Lstat(filepath.Join(dir, "a/link.md")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link was not replaced by the file: %v %v", fi, err)
	}
	ro, err := OpenRoot(dir, RootOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var roe *ReadOnlyError
	if err := ro.WriteFile("a/x.md", nil, 0o644); !errors.As(err, &roe) {
		t.Errorf("a read-only root wrote: %v", err)
	}
}

func TestRootWriteIsAtomic(t *testing.T) {
	r, dir, _ := tree(t, RootOptions{})
	for _, v := range []string{"one", "two"} {
		must(t, r.WriteFile("sub/a.md", []byte(v), 0o640))
	}
	got, _ := os.ReadFile(filepath.Join(dir, "sub/a.md"))
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	fi, _ := os.Stat(filepath.Join(dir, "sub/a.md"))
	if string(got) != "two" || len(entries) != 1 || fi.Mode().Perm() != 0o640 {
		t.Errorf("content %q, %d entries, mode %v", got, len(entries), fi.Mode())
	}
}

func TestFolderFilesStaysInside(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	must(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("# Id"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "notes/sub"), 0o755))
	for _, f := range []string{"notes/a.md", "notes/sub/b.md", "notes/.hidden"} {
		must(t, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644))
	}
	must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "notes/leak.md")))
	ws, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	files, more, err := ws.FolderFiles(filepath.Join(dir, "notes"))
	want := []string{filepath.Join(dir, "notes/a.md"), filepath.Join(dir, "notes/sub/b.md")}
	if err != nil || more || strings.Join(files, ",") != strings.Join(want, ",") {
		t.Errorf("FolderFiles = %v, %v, %v; want %v", files, more, err, want)
	}
	if _, err := fs.Stat(os.DirFS(outside), "secret.md"); err != nil {
		t.Fatal(err)
	}
}
