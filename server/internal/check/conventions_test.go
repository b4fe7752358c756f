package check

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/need"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// conventionCounts counts the conventions findings of a report by rule.
func conventionCounts(rep *Report) map[string]int {
	n := map[string]int{}
	for _, f := range rep.Findings {
		if f.Code == contract.CodeConventions {
			if f.Severity != contract.Warning || f.Basis != contract.BasisConventions {
				panic("a conventions finding must be a warning on the conventions basis: " + f.Message)
			}
			n[f.Data["rule"]]++
		}
	}
	return n
}

// The profile is opt-in: without it, no conventions finding; an empty
// folder is a breach of the .gitkeep rule.
func TestConventionsAreOptIn(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- CONTEXT.md --
# Routing
-- stages/01-a/CONTEXT.md --
# Stage 01: A
## Inputs
| Source | File/Location | Section/Scope | Why |
|---|---|---|---|
| Notes | `+"`notes.md`"+` | Full file | What |
## Process
Do it.
## Outputs
- a.md -> output/
-- stages/01-a/notes.md --
Notes.
`)
	if err := os.MkdirAll(filepath.Join(dir, "stages", "01-a", "output"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := open(t, dir)
	if n := conventionCounts(Run(ws, Options{})); len(n) != 0 {
		t.Errorf("without the profile: %v", n)
	}
	n := conventionCounts(Run(ws, Options{Conventions: ConventionsTemplate}))
	if n[ruleGitkeep] != 1 || len(n) != 1 {
		t.Errorf("with the profile: %v; want only the empty output/ folder", n)
	}
}

// Side by side with the template's own checker on the template: the
// same count for every rule where bin/validate.py is right; where it is
// not (names the template itself ships in capitals; "/_core/…" resolved
// from the file system's root), icm's judged count.
func TestConventionsBesideValidatePy(t *testing.T) {
	root := wstest.Shared(t, "corpus", "upstream-icm-template")
	script := filepath.Join(root, "bin", "validate.py")
	python := need.Program(t, "python3")
	var out bytes.Buffer
	cmd := exec.Command(python, script, root)
	cmd.Stdout = &out
	_ = cmd.Run() // exit 1 when a rule fails
	theirs := map[string]int{}
	line := regexp.MustCompile(`^(PASS|FAIL)\s+(.+?)(?:\s+(\d+))?$`)
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		m := line.FindStringSubmatch(strings.TrimRight(sc.Text(), " "))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[3])
		theirs[m[2]] = n
	}
	if len(theirs) != len(ConventionRules) {
		t.Fatalf("validate.py reported %d rules, icm knows %d: %v", len(theirs), len(ConventionRules), theirs)
	}
	ws, err := workspace.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ours := conventionCounts(Run(ws, Options{Conventions: ConventionsTemplate}))
	judged := map[string]int{
		ruleLowercase: 0, // AGENTS.md, PROGRESS.md, QUALITY-GATES.md: names the template ships
		ruleResolve:   1, // 11 of its 12 are /_core/… read from the file system's root
	}
	for _, rule := range ConventionRules {
		want, ok := judged[rule]
		if !ok {
			want = theirs[rule]
		}
		if ours[rule] != want {
			t.Errorf("%s: icm %d, validate.py %d, want %d", rule, ours[rule], theirs[rule], want)
		}
	}
}
