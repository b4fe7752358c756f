package demo_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/cli"
	"github.com/icm-tool/icm/server/internal/testutil/gobin"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/usersettings"
)

// icmBin is icm itself: the copy's search and reader servers are
// `command = "icm"` servers, which the test binary cannot stand in for.
var icmBin string

func TestMain(m *testing.M) {
	gobin.Main(m, map[*string]string{&icmBin: "github.com/icm-tool/icm/server/cmd/icm"})
}

// demo runs `icm demo ARGS` with stdin as the person's answers, in an
// environment that names no model server (there is none to find) and
// holds only the test's own config folder (trust records).
func demo(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Self: icmBin,
		Getenv: func(k string) string {
			if k == usersettings.ConfigDirEnv {
				return os.Getenv(k)
			}
			return ""
		}, Getwd: os.Getwd}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := cli.MainWith(ctx, env, append([]string{"demo"}, args...))
	return out.String(), errb.String(), code
}

// snapshot lists every file under dir with its size and time, to show
// that the demo leaves the tracked sample as it was.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s %d\n", p, info.ModTime(), info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func status(t *testing.T, dir string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Main(context.Background(), []string{"status", "-w", dir}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("status: %s", errb.String())
	}
	return out.String()
}

// TestDemoRunsEveryStageThroughItsGates: `icm demo --yes` runs the four
// stages of the sample on a copy, stopping at each gate and approving
// (--yes), with no model server anywhere: the answers are canned and it
// says so. The research stage really searches and reads, through icm's
// own MCP servers, the fixture site that only this copy may read; the
// tracked sample is not written.
func TestDemoRunsEveryStageThroughItsGates(t *testing.T) {
	sample := wstest.Shipped(t, "course-research")
	before := snapshot(t, sample)
	dir := filepath.Join(t.TempDir(), "demo")
	start := time.Now()
	out, errOut, code := demo(t, "", "--yes", "--dir", dir)
	t.Logf("icm demo --yes took %s", time.Since(start).Round(time.Millisecond))
	if code != 0 {
		t.Fatalf("icm demo --yes: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"canned answers", "No model runs here", "icm trusts this copy", "it is icm's own demo",
		"Gate 1 of 4", "Gate 4 of 4", "Approve 01-scope and go on? [Y/n] y (--yes)", "Approve 04-draft and finish? [Y/n] y (--yes)",
		"(--yes approves it at once)",
		"Done: all 4 stages ran and are approved"} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo does not say %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"▶ 01-scope", "▶ 02-research", "tool search-server_search", "tool browser-server_summarize", "▶ 03-outline", "▶ 04-draft", "[4/4]"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the run's progress does not show %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "error:") {
		t.Errorf("a tool call failed:\n%s", errOut)
	}
	// A canned answer takes no time to write: a rate read from it
	// ("176353 tok/s") would be a figure of nothing.
	if strings.Contains(errOut, "tok/s") {
		t.Errorf("the demo's progress gives a writing rate for canned answers:\n%s", errOut)
	}
	if st := status(t, dir); strings.Count(st, " approved ") != 4 || !strings.Contains(st, "every stage is approved") {
		t.Errorf("the copy after the demo:\n%s", st)
	}
	notes, err := os.ReadFile(filepath.Join(dir, "pipeline/02-research/output/notes.md"))
	if err != nil || !regexp.MustCompile(`Sources: http://127\.0\.0\.1:\d+/guide/install`).Match(notes) {
		t.Errorf("the notes do not cite the page the reader read (%v):\n%s", err, notes)
	}
	draft, err := os.ReadFile(filepath.Join(dir, "pipeline/04-draft/output/draft.md"))
	if err != nil || strings.Count(string(draft), "\n## Module ") != 3 || !strings.HasPrefix(string(draft), "## Module 1") {
		t.Errorf("the draft does not hold the four modules in order (%v):\n%s", err, draft)
	}
	// The reader may read the fixture site's one address, nothing wider.
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	if !regexp.MustCompile(`"--allow-host", "127\.0\.0\.1:\d+"`).Match(cfg) {
		t.Errorf("the copy's reader is not limited to the fixture site:\n%s", cfg)
	}
	if after := snapshot(t, sample); after != before {
		t.Error("the demo wrote into the tracked sample workspace")
	}
}

// TestDemoAsksAtEachGate: without --yes the demo asks at each gate as a
// real run would: an empty answer approves, n stops there and leaves the
// copy as it stands, and the end of the input stops with why.
func TestDemoAsksAtEachGate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	out, errOut, code := demo(t, "\nn\n", "--dir", dir)
	if code != 0 {
		t.Fatalf("icm demo: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "Approve 01-scope and go on? [Y/n] approved 01-scope") || !strings.Contains(out, "Stopped at 02-research's gate") {
		t.Errorf("the answers were not asked and followed:\n%s", out)
	}
	st := status(t, dir)
	for _, want := range []string{`01-scope +approved`, `02-research +awaiting review`, `03-outline +pending`} {
		if !regexp.MustCompile(want).MatchString(st) {
			t.Errorf("after stopping at the second gate the copy does not read %q:\n%s", want, st)
		}
	}
	out, _, code = demo(t, "", "--dir", filepath.Join(t.TempDir(), "demo"))
	if code != 0 || !strings.Contains(out, "no answer (the input ended)") || strings.Contains(out, "approved 01-scope") {
		t.Errorf("with no input: exit %d\n%s", code, out)
	}
}

// TestDemoWantsAnEmptyFolder: --dir must not hold anything the copy would
// mix with.
func TestDemoWantsAnEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := demo(t, "", "--yes", "--dir", dir)
	if code == 0 || !strings.Contains(errOut, "it is not empty") {
		t.Errorf("a folder with a file in it: exit %d %s", code, errOut)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.md")); string(data) != "mine" {
		t.Error("the folder's file was changed")
	}
}

// TestDemoWithYesSaysItDoesNotWait: with --yes the gate line does not
// promise a wait it does not make, and the last gate asks to finish, not
// to go on to a stage that is not there.
func TestDemoWithYesSaysItDoesNotWait(t *testing.T) {
	out, errOut, code := demo(t, "", "--yes", "--dir", filepath.Join(t.TempDir(), "demo"))
	if code != 0 {
		t.Fatalf("icm demo --yes: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "the demo waits") || strings.Contains(out, "Approve 04-draft and go on?") {
		t.Errorf("the demo with --yes says:\n%s", out)
	}
}

// TestDemoLeavesNothingBehind: a demo in a temporary copy removes the
// copy when it ends, and no demo leaves its trust record (the stand-ins
// it trusted are gone with the demo); the end says how to keep a copy.
func TestDemoLeavesNothingBehind(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out, errOut, code := demo(t, "", "--yes")
	if code != 0 {
		t.Fatalf("icm demo --yes: exit %d\n%s%s", code, out, errOut)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("the demo left %s in the temporary folder", entries[0].Name())
	}
	if !strings.Contains(out, "--dir") {
		t.Errorf("the demo's end does not say how to keep a copy:\n%s", out)
	}
	dir := filepath.Join(t.TempDir(), "demo")
	if out, errOut, code := demo(t, "", "--yes", "--dir", dir); code != 0 {
		t.Fatalf("icm demo --yes --dir: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline", "04-draft", "output", "draft.md")); err != nil {
		t.Errorf("the copy --dir names is gone: %v", err)
	}
	store, err := trust.StoreFor(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	records, _ := store.List()
	for _, r := range records {
		if strings.HasPrefix(r.Path, tmp) || strings.HasPrefix(r.Path, filepath.Dir(dir)) {
			t.Errorf("the demo left a trust record for %s", r.Path)
		}
	}
}
