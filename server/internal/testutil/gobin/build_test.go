package gobin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// module writes a one-file module whose program prints word.
func module(t *testing.T, dir, word string) {
	t.Helper()
	files := map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.24\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"" + word + "\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func say(t *testing.T, exe string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), exe).Output()
	if err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	return strings.TrimSpace(string(out))
}

// TestBuildOncePerChange: a second Build of an unchanged program gives
// the same file, not a new copy; a changed program gets a new file under
// the same name, and a process that holds the old one keeps it whole.
func TestBuildOncePerChange(t *testing.T) {
	t.Setenv("CACHE_DIR", t.TempDir())
	src := t.TempDir()
	module(t, src, "one")
	exe, err := Build(t.Context(), src, "example.com/hello")
	if err != nil {
		t.Fatal(err)
	}
	if got := say(t, exe); got != "one" {
		t.Fatalf("the built program says %q", got)
	}
	before, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()

	again, err := Build(t.Context(), src, "example.com/hello")
	if err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(again); err != nil || again != exe || !os.SameFile(before, after) {
		t.Errorf("an unchanged program was copied again: %s (%v)", again, err)
	}

	module(t, src, "two")
	changed, err := Build(t.Context(), src, "example.com/hello")
	if err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(changed); err != nil || changed != exe || os.SameFile(before, after) {
		t.Errorf("a changed program was not replaced: %s (%v)", changed, err)
	}
	if got := say(t, changed); got != "two" {
		t.Errorf("after the change the program says %q", got)
	}
	if held, err := old.Stat(); err != nil || held.Size() != before.Size() {
		t.Errorf("the file a process held changed under it: %v", err)
	}
}

// TestBuildConcurrently: test binaries that start together all get the
// program, whole, at the one path.
func TestBuildConcurrently(t *testing.T) {
	t.Setenv("CACHE_DIR", t.TempDir())
	src := t.TempDir()
	module(t, src, "hello")
	const n = 4
	paths := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { paths[i], errs[i] = Build(t.Context(), src, "example.com/hello") })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || paths[i] != paths[0] {
			t.Fatalf("build %d: %s, %v (the first gave %s)", i, paths[i], errs[i], paths[0])
		}
	}
	if got := say(t, paths[0]); got != "hello" {
		t.Errorf("the program says %q", got)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(paths[0]), ".hello-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary copies left behind: %v", leftovers)
	}
}

// TestBuildSaysWhatFailed: a program that does not compile is an error
// with the compiler's message.
func TestBuildSaysWhatFailed(t *testing.T) {
	t.Setenv("CACHE_DIR", t.TempDir())
	src := t.TempDir()
	module(t, src, "x")
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nfunc main() { undefinedThing() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Build(t.Context(), src, "example.com/hello")
	if err == nil || !strings.Contains(err.Error(), "undefined: undefinedThing") || !strings.Contains(err.Error(), "go build") {
		t.Errorf("err = %v", err)
	}
}

// TestTwoCheckoutsDoNotShare: the same package built in two module
// folders gets two executables.
func TestTwoCheckoutsDoNotShare(t *testing.T) {
	t.Setenv("CACHE_DIR", t.TempDir())
	a, b := t.TempDir(), t.TempDir()
	module(t, a, "a")
	module(t, b, "b")
	ea, err := Build(t.Context(), a, "example.com/hello")
	if err != nil {
		t.Fatal(err)
	}
	eb, err := Build(t.Context(), b, "example.com/hello")
	if err != nil {
		t.Fatal(err)
	}
	if ea == eb || say(t, ea) != "a" || say(t, eb) != "b" {
		t.Errorf("two checkouts: %s says %q, %s says %q", ea, say(t, ea), eb, say(t, eb))
	}
}
