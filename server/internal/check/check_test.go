package check

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func open(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestShippedWorkspacesHaveNoErrors(t *testing.T) {
	for _, name := range []string{"course-research", "course-rust"} {
		rep := Run(open(t, wstest.Copy(t, name)), Options{})
		for _, f := range rep.Findings {
			if f.Severity <= contract.Warning {
				t.Errorf("%s: %s: %s", name, f.File, f)
			}
		}
		if len(rep.Stages) != 4 {
			t.Errorf("%s: %d stages", name, len(rep.Stages))
		}
	}
}

// recordingFiles records every path read through the workspace.
type recordingFiles struct {
	mu    sync.Mutex
	paths []string
}

func (r *recordingFiles) ReadFile(p string) ([]byte, error) {
	r.mu.Lock()
	r.paths = append(r.paths, p)
	r.mu.Unlock()
	return os.ReadFile(p)
}

func (r *recordingFiles) Stat(p string) (fs.FileInfo, error) {
	r.mu.Lock()
	r.paths = append(r.paths, p)
	r.mu.Unlock()
	return os.Stat(p)
}

const escapes = `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 3 (reference): ../../../../../../../etc/passwd
- Layer 3 (reference): /etc/hostname
- Layer 3 (reference): link/secret.md
- Layer 4 (working): ok.md

## Process
Do it.

## Outputs
- a.md -> output/
-- pipeline/01-a/ok.md --
fine
-- pipeline/01-a/link.symlink --
OUTSIDE
`

func TestPathEscapesRefused(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A repository's root: what climbs above it or links out is certain
	// to leave (outside git it would be a note: TestOutsideGitWhatLiesAboveIsANote).
	dir := wstest.Write(t, "-- .git/HEAD --\nref: refs/heads/main\n"+strings.ReplaceAll(escapes, "OUTSIDE", outside))
	files := &recordingFiles{}
	ws, err := workspace.Open(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	rep := Run(ws, Options{})
	contractPath := filepath.Join(dir, "pipeline/01-a/CONTEXT.md")
	src, _ := os.ReadFile(contractPath)
	m := document.NewMapper(src)
	wantLines := map[int]string{4: "../../../../../../../etc/passwd", 6: "link/secret.md"}
	got := map[int]bool{}
	for _, f := range rep.Findings {
		// A leading "/" names the repository above the workspace, never the
		// file system's root: /etc/hostname is missing there.
		if line, _, _ := m.LineCol(f.Range.Start); line == 5 && f.Code == contract.CodeInputMissing && f.Severity == contract.Error && !strings.Contains(f.Message, "is read from") {
			got[5] = true
		}
		if f.Code != contract.CodePathEscape {
			continue
		}
		if f.Severity != contract.Error {
			t.Errorf("escape finding severity %s", f.Severity)
		}
		line, _, err := m.LineCol(f.Range.Start)
		if err != nil {
			t.Fatal(err)
		}
		if want, ok := wantLines[line]; !ok || string(src[f.Range.Start:f.Range.End]) != want {
			t.Errorf("escape finding at line %d covers %q", line, src[f.Range.Start:f.Range.End])
		}
		got[line] = true
	}
	for line := range wantLines {
		if !got[line] {
			t.Errorf("no path-escape finding on line %d; findings: %v", line, rep.Findings)
		}
	}
	if !got[5] {
		t.Errorf("no input-missing finding for /etc/hostname on line 5; findings: %v", rep.Findings)
	}
	for _, p := range files.paths {
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Errorf("read outside the workspace: %s", p)
		}
	}
}

const crossStage = `
-- CLAUDE.md --
# Id
-- _config/long.md --
LONG
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): ../02-b/output/b.md
- Layer 4 (working): output/a.md
- Layer 3 (reference): ../../_config/long.md
- Layer 3 (reference): ../../_config/audiance.md

## Tools
ghost-server: search

## Process
Do it.

## Outputs
- a.md -> output/
- shared.md -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Inputs
- Layer 4 (working): ../01-a/output/a.md

## For each
item in ../03-c/output/c.md

## Process
Do it.

## Outputs
- b.md -> output/
-- pipeline/03-c/CONTEXT.md --
# Stage: 03-c

## For each
item in nowhere.md

## Process
Do it.

## Outputs
- c.md -> output/
-- _config/audience.md --
# Audience
`

func TestCrossStageFindings(t *testing.T) {
	long := strings.Repeat("a line\n", contract.MaxReferenceLines+5)
	dir := wstest.Write(t, strings.Replace(crossStage, "LONG\n", long, 1))
	rep := Run(open(t, dir), Options{})
	want := []struct{ code, file, text string }{
		{contract.CodeInputLater, "01-a", "../02-b/output/b.md"},
		{contract.CodeInputSelf, "01-a", "output/a.md"},
		{contract.CodeReferenceTooLong, "01-a", "../../_config/long.md"},
		{contract.CodeInputMissing, "01-a", "../../_config/audiance.md"},
		{contract.CodeUnknownServer, "01-a", "ghost-server"},
		{contract.CodeInputNotYet, "02-b", "../01-a/output/a.md"},
		{contract.CodeForEachSource, "02-b", "../03-c/output/c.md"},
		{contract.CodeForEachSource, "03-c", "nowhere.md"},
	}
	for _, w := range want {
		found := false
		for _, f := range rep.Findings {
			if f.Code != w.code || !strings.Contains(f.File, w.file) {
				continue
			}
			src, _ := os.ReadFile(f.File)
			if string(src[f.Range.Start:f.Range.End]) == w.text {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s finding on %q in %s", w.code, w.text, w.file)
		}
	}
	for _, f := range rep.Findings {
		if f.Code == contract.CodeInputMissing && f.Data["suggest"] != "_config/audience.md" {
			t.Errorf("suggestion = %q, want _config/audience.md", f.Data["suggest"])
		}
		if f.Code == contract.CodeInputNotYet && f.Severity != contract.Info {
			t.Errorf("not-yet-produced must be info, is %s", f.Severity)
		}
	}
	if s := rep.Stage("02-b"); s.Items != -1 {
		t.Errorf("items of a missing source = %d", s.Items)
	}
}

func TestOutputConflictAndBudget(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- config.toml --
[workflow]
token_budget = 5
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Process
Write a long answer about many things at once, please.
## Outputs
- a.md -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b
## Process
Again.
## Outputs
- ../../01-a/output/a.md -> output/
- a.md -> output/
`)
	rep := Run(open(t, dir), Options{Window: 12, Reserve: 4})
	codes := map[string]int{}
	for _, f := range rep.Findings {
		codes[f.Code]++
	}
	if codes[contract.CodeOverBudget] == 0 || codes[contract.CodeOverWindow] == 0 {
		t.Errorf("budget findings missing: %v", codes)
	}
	if codes[contract.CodeOutputLocation] != 1 {
		t.Errorf("output location findings = %d, want 1: %v", codes[contract.CodeOutputLocation], rep.Findings)
	}
}

func TestForEachItemsCounted(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- outline.md --
# Outline
## One
a
## Two
b
## Three
c
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## For each
part in ../../outline.md
## Process
Write it.
## Outputs
- a.md -> output/
`)
	rep := Run(open(t, dir), Options{})
	if n := rep.Stage("01-a").Items; n != 3 {
		t.Errorf("items = %d, want 3", n)
	}
}

func TestPipelineMarksStagesThatCannotRun(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Inputs
- Layer 4 (working): missing.md
## Process
Go.
## Outputs
- a.md -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b
## Process
Go.
## Outputs
- b.md -> output/
`)
	p, err := Run(open(t, dir), Options{}).Pipeline("")
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Stages[0], p.Stages[1]
	if a.Status != "invalid" || !strings.Contains(a.Reason, "missing.md does not exist") {
		t.Errorf("01-a = %s (%s)", a.Status, a.Reason)
	}
	if b.Status != "pending" || p.Next.Stage != "01-a" || p.Next.Action != "fix" {
		t.Errorf("02-b = %s, next = %+v", b.Status, p.Next)
	}
}

func TestThresholdsChecked(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Process
Judge.
## Thresholds
- technical_depth: 6
- elegance: 3
## Outputs
- a.md -> output/
`)
	rep := Run(open(t, dir), Options{})
	var got []string
	for _, f := range rep.Findings {
		if f.Code == contract.CodeBadThresholds || f.Code == contract.CodeUnknownSection {
			got = append(got, f.Code+": "+f.Message)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "bad-thresholds") || !strings.Contains(got[0], "elegance") {
		t.Errorf("findings = %v", got)
	}
}

// TestConfigFindingsArePlaced: config.toml problems are findings on the
// key or value they are about, with the model the server has suggested.
func TestConfigFindingsArePlaced(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- config.toml --
[model]
name = "qwen3.5:9"
temprature = 0.2
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Process
Go.
## Outputs
- a.md -> output/
`)
	src, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	rep := Run(open(t, dir), Options{Models: []string{"qwen3.5:9b"}, ModelServer: "the Ollama server"})
	got := map[string]contract.Finding{}
	for _, f := range rep.Findings {
		if filepath.Base(f.File) == "config.toml" {
			got[f.Code] = f
		}
	}
	m, u := got["config-model-missing"], got["config-unknown-key"]
	if string(src[m.Range.Start:m.Range.End]) != `"qwen3.5:9"` || m.Data["suggest"] != "qwen3.5:9b" || m.Severity != contract.Warning {
		t.Errorf("model finding: %+v", m)
	}
	if string(src[u.Range.Start:u.Range.End]) != "temprature" || u.Data["suggest"] != "temperature" {
		t.Errorf("unknown key finding: %+v", u)
	}
	// Without the server's list, no model finding.
	for _, f := range Run(open(t, dir), Options{}).Findings {
		if f.Code == "config-model-missing" {
			t.Errorf("a model finding with no model list: %+v", f)
		}
	}
}

// TestDownstream: the course pipeline's stages feed the later ones; the
// draft reads the research and the outline, the outline the scope.
func TestDownstream(t *testing.T) {
	rep := Run(open(t, wstest.Copy(t, "course-research")), Options{})
	down := Downstream(rep)
	for stage, want := range map[string]string{
		"01-scope":    "02-research,03-outline,04-draft",
		"02-research": "03-outline,04-draft",
		"03-outline":  "04-draft",
		"04-draft":    "",
	} {
		if got := strings.Join(down[stage], ","); got != want {
			t.Errorf("downstream of %s = %q, want %q", stage, got, want)
		}
	}
}

// A For each stage whose every output holds a placeholder is valid
// notation, but icm run has no one file for the joined answers: a note at
// the Outputs says so before a run fails on it. A stage without For each
// names its files through the write tool, so it gets no note (02-c).
func TestModelStageWithoutAConcreteOutputIsNoted(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## For each
part in parts.md
## Process
Write the report.
## Outputs
| Artifact | Location |
|----------|----------|
| Report | `+"`output/report-{slug}.md`"+` |
-- pipeline/01-a/parts.md --
## One
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b
## Process
Again.
## Outputs
- b.md -> output/
-- pipeline/03-c/CONTEXT.md --
# Stage: 03-c
## Process
Name the files.
## Outputs
- report-[slug].md -> output/
`)
	rep := Run(open(t, dir), Options{})
	var got []contract.Finding
	for _, f := range rep.Findings {
		if f.Code == contract.CodeNoModelOutput {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != contract.Info || !strings.HasSuffix(got[0].File, filepath.Join("01-a", "CONTEXT.md")) {
		t.Fatalf("no-model-output findings = %+v, want one note on 01-a", got)
	}
	text, err := os.ReadFile(got[0].File)
	if err != nil {
		t.Fatal(err)
	}
	if at := string(text[got[0].Range.Start:got[0].Range.End]); !strings.Contains(at, "report-{slug}.md") {
		t.Errorf("the note is at %q, not at the output", at)
	}
	// A note says what is so; it never asks for a rewrite into icm's
	// notation.
	if !strings.Contains(got[0].Message, "no one file") || strings.Contains(got[0].Message, "-> output/") {
		t.Errorf("the note: %s; want what icm cannot do, without advice to rewrite", got[0].Message)
	}
}

// TestOverTheWindowIsAnErrorOnlyBeyondTheEstimatesError: the context's
// size is an estimate; a stage over the window by less than the
// estimate's error may fit, so it is a warning (the run asks the model
// server, whose count is certain), and only a stage over it beyond that
// error is an error, which refuses the run.
func TestOverTheWindowIsAnErrorOnlyBeyondTheEstimatesError(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Process
Write a long answer about many things at once, please, and keep it plain.
## Outputs
- a.md -> output/
`)
	ws := open(t, dir)
	total := Run(ws, Options{}).Stage("01-a").Context.Total
	for _, c := range []struct {
		name   string
		window int
		want   contract.Severity
	}{
		{"over by the estimate, within its error", total + 4 - 1, contract.Warning},
		{"over beyond its error", total*85/100 + 4 - 1, contract.Error},
	} {
		rep := Run(ws, Options{Window: c.window, Reserve: 4})
		var got []contract.Finding
		for _, f := range rep.Findings {
			if f.Code == contract.CodeOverWindow {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Severity != c.want {
			t.Errorf("%s (about %d tokens, window %d): %v, want one %s", c.name, total, c.window, got, c.want)
		}
	}
}
