package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// hostileTree lays out, beside tree's a/b/in.md, every kind of path a
// pass's folder handles must answer exactly as the tree does.
func hostileTree(t *testing.T) (r *Root, dir, outside string, paths []string) {
	t.Helper()
	r, dir, outside = tree(t, RootOptions{MaxRead: 1 << 10})
	at := func(p string) string { return filepath.Join(dir, p) }
	must(t, os.WriteFile(at("top.md"), []byte("top"), 0o644))
	must(t, os.WriteFile(at("a/b/big"), make([]byte, 4<<10), 0o644))
	must(t, os.Symlink("../../top.md", at("a/b/up")))                       // climbs above a/b, stays inside
	must(t, os.Symlink("../..", at("a/b/root")))                            // a folder above, inside
	must(t, os.Symlink(filepath.Join(dir, "top.md"), at("a/b/abs")))        // absolute, inside
	must(t, os.Symlink(filepath.Join(outside, "secret.md"), at("a/b/out"))) // out
	must(t, os.Symlink("../../..", at("a/b/climb")))                        // out, through ..
	must(t, os.Symlink(outside, at("a/b/dir-out")))                         // a folder out
	must(t, os.Symlink("l2", at("a/b/l1")))                                 // a loop
	must(t, os.Symlink("l1", at("a/b/l2")))
	must(t, os.Symlink("b", at("a/lb"))) // a folder that is a link
	// Five links to reach a folder, five more to reach the file in it: ten
	// in all, past MaxLinks, whether the folder has a handle or not.
	must(t, os.MkdirAll(at("c/d"), 0o755))
	must(t, os.WriteFile(at("c/d/f.md"), []byte("f"), 0o644))
	for i := 1; i <= 5; i++ {
		dst, fdst := fmt.Sprintf("d%d", i+1), fmt.Sprintf("f%d", i+1)
		if i == 5 {
			dst, fdst = "c/d", "f.md"
		}
		must(t, os.Symlink(dst, at(fmt.Sprintf("d%d", i))))
		must(t, os.Symlink(fdst, at(fmt.Sprintf("c/d/f%d", i))))
	}
	paths = []string{
		"a/b/in.md", "a/b/up", "a/b/root/top.md", "a/b/root/a/b/in.md", "a/b/abs", "a/b/out", "a/b/climb",
		"a/b/climb/" + filepath.Base(outside) + "/secret.md", "a/b/dir-out/secret.md", "a/b/l1", "a/b/l1/x",
		"a/lb/in.md", "a/b/missing", "a/b/none/x.md", "a/b/in.md/x", "a/b/big", "a/b", "a/b/.",
		"d1/f1", "d1/f.md", "c/d/f1", "c/d/f.md", "top.md",
	}
	if err := syscall.Mkfifo(at("a/b/pipe"), 0o644); err == nil {
		paths = append(paths, "a/b/pipe")
	}
	return r, dir, outside, paths
}

// describe writes an answer as a comparable line: the data or entries,
// and the error's kind, link and text.
func describe(v any, err error) string {
	var esc *EscapeError
	var loop *LoopError
	var nr *NotRegularError
	var big *TooLargeError
	kind := "ok"
	switch {
	case err == nil:
	case errors.As(err, &esc):
		kind = "escape via " + esc.Link
	case errors.As(err, &loop):
		kind = "loop"
	case errors.As(err, &nr):
		kind = "not regular"
	case errors.As(err, &big):
		kind = "too large"
	case errors.Is(err, fs.ErrNotExist):
		kind = "not exist"
	default:
		kind = "other"
	}
	text := ""
	if err != nil {
		text = err.Error()
	}
	switch v := v.(type) {
	case []byte:
		return fmt.Sprintf("%q %s: %s", v, kind, text)
	case fs.FileInfo:
		if v == nil {
			return kind + ": " + text
		}
		return fmt.Sprintf("%s %v %d %s: %s", v.Name(), v.Mode(), v.Size(), kind, text)
	case []fs.DirEntry:
		var names []string
		for _, e := range v {
			names = append(names, e.Name())
		}
		return fmt.Sprintf("%v %s: %s", names, kind, text)
	}
	return fmt.Sprintf("%v %s: %s", v, kind, text)
}

// Every answer of a pass, held folders and all, is the tree's own: the
// same data, the same refusals naming the same links, the same loops.
func TestPassAnswersAsTheTreeDoes(t *testing.T) {
	r, _, _, paths := hostileTree(t)
	p := r.pass()
	defer p.folders.close()
	ops := map[string]func(r *Root, name string) string{
		"read":    func(r *Root, n string) string { return describe(r.ReadFile(n)) },
		"stat":    func(r *Root, n string) string { return describe(r.Stat(n)) },
		"lstat":   func(r *Root, n string) string { return describe(r.Lstat(n)) },
		"readdir": func(r *Root, n string) string { return describe(r.ReadDir(n)) },
		"resolve": func(r *Root, n string) string { return describe(r.Resolve(n)) },
		"walk": func(r *Root, n string) string {
			var seen []string
			err := r.WalkDir(n, func(p string, d fs.DirEntry, err error) error {
				seen = append(seen, describe(p, err))
				return nil
			})
			return describe(seen, err)
		},
	}
	// Twice over: the first time the pass opens its folders, the second
	// time it answers through them.
	for round := range 2 {
		for _, n := range paths {
			for op, f := range ops {
				if want, got := f(r, n), f(p, n); got != want {
					t.Errorf("round %d, %s %s:\n tree %s\n pass %s", round, op, n, want, got)
				}
			}
		}
	}
	if p.folders.held == 0 {
		t.Fatal("the pass held no folder: the comparison proved nothing")
	}
}

// Only real folders get a handle: none for a folder that is a link, none
// below one, none for a file or a missing folder.
func TestPassHoldsOnlyRealFolders(t *testing.T) {
	r, _, _, paths := hostileTree(t)
	p := r.pass()
	defer p.folders.close()
	for _, n := range paths {
		_, _ = p.ReadFile(n)
		_, _ = p.Stat(n)
	}
	for name, h := range p.folders.open {
		real := name == "a" || name == "a/b" || name == "c" || name == "c/d"
		if (h != nil) != real {
			t.Errorf("folder %s: handle %v", name, h != nil)
		}
	}
	for _, name := range []string{"a", "a/b", "c/d"} {
		if p.folders.open[name] == nil {
			t.Errorf("no handle for %s", name)
		}
	}
}

// A link swapped in for a folder the pass holds is never followed: the
// handle holds the folder itself, and nothing outside is read.
func TestPassNeverFollowsALinkSwappedInForAHeldFolder(t *testing.T) {
	r, dir, outside := tree(t, RootOptions{})
	must(t, os.WriteFile(filepath.Join(outside, "in.md"), []byte("secret"), 0o644))
	p := r.pass()
	defer p.folders.close()
	if data, err := p.ReadFile("a/b/in.md"); err != nil || string(data) != "inside" {
		t.Fatalf("before the swap: %q, %v", data, err)
	}
	must(t, os.Rename(filepath.Join(dir, "a/b"), filepath.Join(dir, "a/b-old")))
	must(t, os.Symlink(outside, filepath.Join(dir, "a/b")))
	for _, read := range []func() ([]byte, error){
		func() ([]byte, error) { return p.ReadFile("a/b/in.md") },
		func() ([]byte, error) { return r.ReadFile("a/b/in.md") },
	} {
		if data, err := read(); strings.Contains(string(data), "secret") {
			t.Errorf("read the file outside: %q, %v", data, err)
		}
	}
	// A pass that starts now sees the link, and refuses it.
	q := r.pass()
	defer q.folders.close()
	var esc *EscapeError
	if _, err := q.ReadFile("a/b/in.md"); !errors.As(err, &esc) || esc.Link != "a/b" {
		t.Errorf("a new pass: %v; want an escape through a/b", err)
	}
}

// Past its budget a pass opens no more handles and still answers right;
// EndPass closes every descriptor it opened.
func TestPassBudgetAndEnd(t *testing.T) {
	r, dir, _ := tree(t, RootOptions{})
	for i := range 20 {
		sub := filepath.Join(dir, fmt.Sprintf("s/%02d", i))
		must(t, os.MkdirAll(sub, 0o755))
		must(t, os.WriteFile(filepath.Join(sub, "f.md"), []byte(fmt.Sprint(i)), 0o644))
	}
	before := openFiles(t)
	ws := &Workspace{Root: dir, Disk: r, Files: r}
	pass := ws.Pass()
	pass.Disk.folders.max = 4
	for round := range 3 {
		for i := range 20 {
			data, err := pass.Files.ReadFile(fmt.Sprintf("s/%02d/f.md", i))
			if err != nil || string(data) != fmt.Sprint(i) {
				t.Fatalf("round %d, file %d: %q, %v", round, i, data, err)
			}
			if held := pass.Disk.folders.held; held > 4 {
				t.Fatalf("%d handles held, over the budget of 4", held)
			}
		}
	}
	pass.EndPass()
	if after := openFiles(t); before >= 0 && after != before {
		t.Errorf("%d descriptors open after the pass, %d before", after, before)
	}
	if pass.Disk.folders.held != 0 || len(pass.Disk.folders.open) != 0 {
		t.Errorf("EndPass left %d handles", pass.Disk.folders.held)
	}
}

// openFiles counts the process's open descriptors (-1 where the system
// does not list them).
func openFiles(t *testing.T) int {
	if runtime.GOOS != "linux" {
		return -1
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// A folder the pass has seen, replaced by a named pipe before the pass
// opens a handle for it: the open does not wait for a writer, and the
// answer is the tree's.
func TestPassNeverBlocksOnAPipeSwappedInForAFolder(t *testing.T) {
	r, dir, _ := tree(t, RootOptions{})
	p := r.pass()
	defer p.folders.close()
	if fi, err := p.lstat("a/b"); err != nil || !fi.IsDir() {
		t.Fatalf("a/b: %v, %v", fi, err)
	}
	must(t, os.RemoveAll(filepath.Join(dir, "a/b")))
	if err := syscall.Mkfifo(filepath.Join(dir, "a/b"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(filepath.Join(dir, "a/b"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	done := make(chan string, 1)
	go func() { done <- describe(p.ReadFile("a/b/in.md")) }()
	select {
	case got := <-done:
		if want := describe(r.ReadFile("a/b/in.md")); got != want {
			t.Errorf("pass %s\ntree %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pass still waited on the named pipe after 10 s")
	}
}

// Past its budget a pass opens no more handles but keeps those it holds:
// a walk through one goes on while its callback reads other folders.
func TestPassBudgetKeepsHandlesInUse(t *testing.T) {
	r, dir, _ := tree(t, RootOptions{})
	for i := range 10 {
		must(t, os.MkdirAll(filepath.Join(dir, fmt.Sprintf("s/w/%02d", i)), 0o755))
		sub := filepath.Join(dir, fmt.Sprintf("t/%02d", i))
		must(t, os.MkdirAll(sub, 0o755))
		must(t, os.WriteFile(filepath.Join(sub, "f.md"), []byte(fmt.Sprint(i)), 0o644))
	}
	walk := func(r *Root) string {
		var seen []string
		err := r.WalkDir("s/w", func(p string, d fs.DirEntry, err error) error {
			seen = append(seen, describe(p, err))
			for i := range 10 {
				if _, err := r.ReadFile(fmt.Sprintf("t/%02d/f.md", i)); err != nil {
					return err
				}
			}
			return nil
		})
		return describe(seen, err)
	}
	p := r.pass()
	defer p.folders.close()
	p.folders.max = 3
	if want, got := walk(r), walk(p); got != want {
		t.Errorf("tree %s\npass %s", want, got)
	}
	if p.folders.held > 3 {
		t.Errorf("%d handles held, over the budget of 3", p.folders.held)
	}
}

// A pass that has ended opens nothing more: a late read goes through the
// tree and leaves no descriptor behind.
func TestPassOpensNothingAfterItEnds(t *testing.T) {
	r, _, _ := tree(t, RootOptions{})
	ws := &Workspace{Disk: r, Files: r}
	before := openFiles(t)
	pass := ws.Pass()
	if _, err := pass.Files.ReadFile("a/b/in.md"); err != nil {
		t.Fatal(err)
	}
	pass.EndPass()
	if data, err := pass.Files.ReadFile("a/b/in.md"); err != nil || string(data) != "inside" {
		t.Fatalf("after the end: %q, %v", data, err)
	}
	if after := openFiles(t); before >= 0 && after != before {
		t.Errorf("%d descriptors open after the pass ended, %d before", after, before)
	}
}

// Goroutines sharing one pass (run with -race) get the tree's answers,
// whether the pass has room for every folder or for two.
func TestPassIsSafeForConcurrentUse(t *testing.T) {
	r, _, _, paths := hostileTree(t)
	ops := []func(r *Root, n string) string{
		func(r *Root, n string) string { return describe(r.ReadFile(n)) },
		func(r *Root, n string) string { return describe(r.Lstat(n)) },
		func(r *Root, n string) string { return describe(r.Resolve(n)) },
		func(r *Root, n string) string { return describe(r.ReadDir(n)) },
	}
	want := map[string]string{}
	for i, op := range ops {
		for _, n := range paths {
			want[fmt.Sprint(i, n)] = op(r, n)
		}
	}
	for _, budget := range []int{maxFolderHandles, 2} {
		p := r.pass()
		p.folders.max = budget
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for k := range len(paths) * len(ops) {
					i, n := k%len(ops), paths[(k/len(ops)+g)%len(paths)]
					if got := ops[i](p, n); got != want[fmt.Sprint(i, n)] {
						t.Errorf("budget %d, op %d on %s: %s; the tree says %s", budget, i, n, got, want[fmt.Sprint(i, n)])
					}
				}
			})
		}
		wg.Wait()
		if p.folders.held > budget {
			t.Errorf("%d handles held, over the budget of %d", p.folders.held, budget)
		}
		p.folders.close()
	}
}
