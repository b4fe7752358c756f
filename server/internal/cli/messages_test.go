package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// A stage with several bad paths: probe still shows what it can assemble
// and lists every error, each with its file, line and column. The
// workspace is a repository's root, so a path climbing above it is
// certain to leave (outside git it would be a note: see
// TestOutsideGitWhatLiesAboveIsANote).
func TestProbeListsEveryPathError(t *testing.T) {
	dir := wstest.Write(t, `
-- .git/HEAD --
ref: refs/heads/main
-- CLAUDE.md --
# Id
-- stages/01-a/CONTEXT.md --
# Stage 01: A

## Inputs

| Source | File/Location | Why |
|--------|---------------|-----|
| Outside | `+"`../../../secret.md`"+` | Climbs out |
| Also outside | `+"`../../../../etc/hosts`"+` | Climbs further |
| Here | `+"`here.md`"+` | Fine |

## Process

Go.

## Outputs

- a.md -> output/
-- stages/01-a/here.md --
HERE-TEXT
`)
	out, errOut, code := runICM(t, "probe", "01-a", "-w", dir)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "HERE-TEXT") {
		t.Errorf("the context was not shown:\n%s", out)
	}
	for _, want := range []string{
		"stages/01-a/CONTEXT.md:7:14: error: path ../../../secret.md leaves the workspace",
		"stages/01-a/CONTEXT.md:8:19: error: path ../../../../etc/hosts leaves the workspace",
		"stage 01-a cannot run as it is: 2 errors",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// Status pads only its aligned columns: a long reason on one stage does
// not pad every other line out to its width.
func TestStatusLinesAreNotPadded(t *testing.T) {
	long := strings.Repeat("very-long-missing-name-", 8) + ".md"
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- stages/01-a/CONTEXT.md --
# Stage 01: A

## Inputs

- Layer 4 (working): `+long+`

## Process

Go.

## Outputs

- a.md -> output/
-- stages/02-b/CONTEXT.md --
# Stage 02: B

## Process

Go.

## Outputs

- b.md -> output/
`)
	out, errOut, code := runICM(t, "status", "-w", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("status:\n%s", out)
	}
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("line ends in spaces (%d columns): %q", len(l), l)
		}
	}
	if !regexp.MustCompile(`^02-b +pending +not run yet$`).MatchString(lines[1]) {
		t.Errorf("02-b line = %q", lines[1])
	}
}
