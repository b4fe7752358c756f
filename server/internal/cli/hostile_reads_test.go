package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Case 7: an input that is a FIFO is refused with a finding; nothing
// blocks in open(2) waiting for a writer that never comes.
func TestFIFOInputIsRefusedWithoutBlocking(t *testing.T) {
	dir := newWS(t, oneStage)
	fifo := filepath.Join(dir, "pipeline/01-a/input.md")
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Should a reader be stuck in open(2), a writer frees it at the end.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	for _, args := range [][]string{{"check"}, {"probe", "01-a"}} {
		var stdout, stderr string
		if !within(t, 20*time.Second, "icm "+strings.Join(args, " ")+" on a FIFO input", func() {
			stdout, stderr, _ = runIn(t, dir, nil, args...)
		}) {
			return
		}
		if !strings.Contains(stdout+stderr, "not a regular file") {
			t.Errorf("icm %s does not refuse the FIFO:\n%s%s", strings.Join(args, " "), stdout, stderr)
		}
	}
}

// A FIFO where config.toml names the stages folder: listing it does not
// wait for a writer either.
func TestFIFOStagesFolderIsRefusedWithoutBlocking(t *testing.T) {
	dir := newWS(t, oneStage)
	fifo := filepath.Join(dir, "steps")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[workspace]\nstages = \"steps\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if !within(t, 20*time.Second, "icm check on a FIFO stages folder", func() {
		_, _, err = runIn(t, dir, nil, "check")
	}) {
		return
	}
	var h interface{ Hint() string }
	if err == nil || !strings.Contains(err.Error(), "steps is a named pipe (FIFO), not a folder") ||
		!errors.As(err, &h) || h.Hint() != "replace steps with a folder" {
		t.Errorf("icm check does not refuse the FIFO: %v", err)
	}
}

// Case 8: a 1 GB sparse input is a finding that says the file is too
// large, not an attempt to allocate it.
func TestHugeInputIsAFindingNotAnAllocation(t *testing.T) {
	dir := newWS(t, oneStage)
	input := filepath.Join(dir, "pipeline/01-a/input.md")
	if err := os.Truncate(input, 1<<30); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check"}, {"probe", "01-a"}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		stdout, stderr, _ := runIn(t, dir, nil, args...)
		runtime.ReadMemStats(&after)
		if !strings.Contains(stdout+stderr, "too large") {
			t.Errorf("icm %s does not say the input is too large:\n%.2000s%.2000s", strings.Join(args, " "), stdout, stderr)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("icm %s allocated %d MB for a 1 GB input", strings.Join(args, " "), grew>>20)
		}
	}
}

// Case 11: symlinks that nest (each link names the one before it eight
// times over) resolve as the kernel would, at once: here with "too many
// links", where icm used to re-walk every target (8^7 steps); a chain of
// 40 links gives the same answer.
func TestNestedSymlinksAnswerAtOnce(t *testing.T) {
	dir := newWS(t, strings.Replace(oneStage, "input.md\n\n## Process", "links/l8/input.md\n- Layer 4 (working): chain/c40\n\n## Process", 1))
	links := filepath.Join(dir, "pipeline/01-a/links")
	if err := os.MkdirAll(links, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(links, "input.md"), []byte("Nested.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(".", filepath.Join(links, "l1")))
	for i := 2; i <= 8; i++ {
		prev := strings.Repeat(fmt.Sprintf("l%d/", i-1), 8)
		must(t, os.Symlink(strings.TrimSuffix(prev, "/"), filepath.Join(links, fmt.Sprintf("l%d", i))))
	}
	chain := filepath.Join(dir, "pipeline/01-a/chain")
	must(t, os.MkdirAll(chain, 0o755))
	must(t, os.WriteFile(filepath.Join(chain, "end.md"), []byte("End.\n"), 0o644))
	must(t, os.Symlink("end.md", filepath.Join(chain, "c1")))
	for i := 2; i <= 40; i++ {
		must(t, os.Symlink(fmt.Sprintf("c%d", i-1), filepath.Join(chain, fmt.Sprintf("c%d", i))))
	}
	var stdout string
	if !within(t, 20*time.Second, "icm check on nested symlinks", func() { stdout, _, _ = runIn(t, dir, nil, "check") }) {
		return
	}
	for _, p := range []string{"links/l8/input.md", "chain/c40"} {
		if !lineWith(stdout, p, "too many symbolic links") {
			t.Errorf("check does not say %s passes too many links:\n%s", p, stdout)
		}
	}
}

// Case 12: a contract nested hundreds or thousands of levels deep is a
// finding at once, not a parse that takes a minute: one of 40 KB (200
// levels) is refused for its depth, one of 1 MB (1,000 levels) and one of
// 4 MB (2,000 levels) for their size.
func TestDeeplyNestedContractIsAFinding(t *testing.T) {
	for _, tc := range []struct {
		levels int
		want   string
	}{{200, "nested 2"}, {1000, "too large"}, {2000, "too large"}} {
		t.Run(fmt.Sprint(tc.levels), func(t *testing.T) {
			dir := newWS(t, oneStage)
			var b strings.Builder
			b.WriteString("# Stage: 01-a\n\n## Process\n\n")
			for i := 0; i < tc.levels; i++ {
				b.WriteString(strings.Repeat("  ", i) + "- level\n")
			}
			b.WriteString("\n## Outputs\n- out.md -> output/\n")
			must(t, os.WriteFile(filepath.Join(dir, "pipeline/01-a/CONTEXT.md"), []byte(b.String()), 0o644))
			var stdout string
			if !within(t, 20*time.Second, "icm check on a deeply nested contract", func() { stdout, _, _ = runIn(t, dir, nil, "check") }) {
				return
			}
			if !lineWith(stdout, "pipeline/01-a/CONTEXT.md", tc.want) {
				t.Errorf("check does not report the contract as %s:\n%.2000s", tc.want, stdout)
			}
		})
	}
}

// lineWith reports whether one line of out holds every part.
func lineWith(out string, parts ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
