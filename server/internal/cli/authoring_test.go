package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// The authoring loop as a person goes through it: icm init, then edits,
// then icm check, icm status, icm run and icm doctor. Each test is one
// defect a person met on the way.

// initWorkspace writes a workspace with icm init and returns its folder.
func initWorkspace(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	if out, errOut, code := runICM(t, "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	return dir
}

// editFile replaces old with new in the workspace file rel, which must
// hold old.
func editFile(t *testing.T, dir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q:\n%s", rel, old, data)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A config.toml with `[workflow` left unclosed is reported at its line
// and column by every command: check, status, run and doctor (which
// files it under the config, not the contracts, and asks nothing of the
// model it cannot know).
func TestConfigSyntaxErrorAtItsLineAndColumnEverywhere(t *testing.T) {
	dir := initWorkspace(t)
	editFile(t, dir, "config.toml", "[workflow]", "[workflow")
	data, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	line := 1 + strings.Count(string(data[:strings.Index(string(data), "[workflow")]), "\n")
	at := "config.toml:" + strconv.Itoa(line) + ":10"
	out, _, code := runICM(t, "check", "-w", dir)
	if code != 1 || !strings.Contains(out, at+": error") {
		t.Errorf("check (exit %d) does not place the error at %s:\n%s", code, at, out)
	}
	out, errOut, _ := runICM(t, "status", "-w", dir)
	if !strings.Contains(out+errOut, at+": ") {
		t.Errorf("status does not place the error at %s:\n%s%s", at, out, errOut)
	}
	out, errOut, code = runICM(t, "run", "-w", dir)
	if code == 0 || !strings.Contains(errOut, at+": ") {
		t.Errorf("run (exit %d) does not place the error at %s:\n%s%s", code, at, out, errOut)
	}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	out, errOut, _ = runDoctor(t, dir, srv.URL())
	wantLines(t, out, "✗ config", at)
	if strings.Contains(out, "✓ model ") || strings.Contains(out, "✓ model\t") {
		t.Errorf("doctor vouches for the model of a config.toml it cannot read:\n%s%s", out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "contracts") && !strings.Contains(l, "✓") {
			t.Errorf("doctor files the config.toml error under the contracts: %q", l)
		}
	}
}

// icm new-stage with a number another stage has refuses, names the stage
// that has it and offers the next free number; nothing is written.
func TestNewStageRefusesANumberInUse(t *testing.T) {
	dir := initWorkspace(t)
	routing, _ := os.ReadFile(filepath.Join(dir, "CONTEXT.md"))
	out, errOut, code := runICM(t, "new-stage", "01-again", "-w", dir)
	if code == 0 {
		t.Fatalf("new-stage 01-again was accepted beside 01-draft:\n%s%s", out, errOut)
	}
	for _, want := range []string{"01-draft", "02", "icm new-stage 02-again"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline", "01-again")); err == nil {
		t.Error("the refused stage's folder was written")
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "CONTEXT.md")); string(now) != string(routing) {
		t.Errorf("the routing file changed:\n%s", now)
	}
	if out, errOut, code := runICM(t, "new-stage", "02-again", "-w", dir); code != 0 {
		t.Errorf("the offered number is refused too: exit %d\n%s%s", code, out, errOut)
	}
}

// checkFindings runs icm check --json on dir and returns its findings.
func checkFindings(t *testing.T, dir string) []located {
	t.Helper()
	out, errOut, code := runICM(t, "check", "-w", dir, "--json")
	if code > 1 {
		t.Fatalf("check: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Findings []located `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	return rep.Findings
}

// Every unknown name, a section, a Verify check or a setting, gets one
// finding, a warning, with the nearest known name as its quick fix; the
// finding says what icm does without it.
func TestUnknownNamesOneFindingWithTheNearestName(t *testing.T) {
	dir := initWorkspace(t)
	const stage = "pipeline/01-draft/CONTEXT.md"
	editFile(t, dir, stage, "## Process", "## Proces") //nolint:misspell // the typo is what the test is about
	editFile(t, dir, stage, "## Outputs", "## Outptus")
	editFile(t, dir, stage, "- no-placeholders", "- no-placeholder\n- max-word 250")
	editFile(t, dir, "config.toml", "temperature =", "temprature =")
	found := checkFindings(t, dir)
	for _, tc := range []struct{ name, near, says string }{
		{"Proces", "Process", "as written"}, //nolint:misspell // the typo is what the test is about
		{"Outptus", "Outputs", "no file"},
		{"no-placeholder", "no-placeholders", "does not run it"},
		{"max-word", "max-words", "does not run it"},
		{"temprature", "temperature", "not applied"},
	} {
		var about []located
		for _, f := range found {
			if strings.Contains(f.Message, tc.name+`"`) || strings.Contains(f.Message, "("+tc.name) || strings.Contains(f.Message, " "+tc.name+")") {
				about = append(about, f)
			}
		}
		if len(about) != 1 {
			t.Errorf("%s: %d findings, want one: %+v", tc.name, len(about), about)
			continue
		}
		f := about[0]
		if f.Severity.String() != "warning" || f.Data["suggest"] != tc.near || !strings.Contains(f.Message, "did you mean") || !strings.Contains(f.Message, tc.says) {
			t.Errorf("%s: %s %q (suggest %q), want a warning suggesting %s that says %q", tc.name, f.Severity, f.Message, f.Data["suggest"], tc.near, tc.says)
		}
	}
	for _, f := range found {
		if f.Code == "missing-section" {
			t.Errorf("a missing section besides the misspelt one: %s", f.Message)
		}
	}
}

// A misspelt setting is not applied and icm says so, but no stage goes
// stale over it: the stage is judged by the setting as the person meant
// it. Correcting the spelling changes nothing either.
func TestMisspeltSettingMakesNoStageStale(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	srv.On(ollamatest.UserContains("")).Reply(ollamatest.Text("# Draft\n\nA first draft of the idea."))
	dir := initWorkspace(t)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if out, errOut, err := runIn(t, dir, vars, "run"); err != nil {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	if out, errOut, err := runIn(t, dir, vars, "approve", "01-draft"); err != nil {
		t.Fatalf("approve: %v\n%s%s", err, out, errOut)
	}
	editFile(t, dir, "config.toml", "temperature =", "temprature =")
	out, errOut, err := runIn(t, dir, vars, "status")
	if err != nil || !strings.Contains(out, "01-draft  approved") || strings.Contains(out, "stale") {
		t.Errorf("status after the misspelling: %v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(errOut, `"model.temprature"`) || !strings.Contains(errOut, "not applied") {
		t.Errorf("status does not say the misspelt setting is not applied:\n%s", errOut)
	}
	editFile(t, dir, "config.toml", "temprature =", "temperature =")
	if out, errOut, err := runIn(t, dir, vars, "status"); err != nil || !strings.Contains(out, "01-draft  approved") {
		t.Errorf("status after the correction: %v\n%s%s", err, out, errOut)
	}
}

// The text icm's skeletons hold for a person to replace, left as it is,
// is a note that says what to write instead: the purpose and Process of
// a new stage, the placeholder input of icm init. A first stage icm init
// wrote whole (its purpose and Process are real instructions) gets none
// for those.
func TestUneditedSkeletonTextIsANoteWithAFix(t *testing.T) {
	dir := initWorkspace(t)
	if out, errOut, code := runICM(t, "new-stage", "review", "-w", dir); code != 0 {
		t.Fatalf("new-stage: exit %d\n%s%s", code, out, errOut)
	}
	found := checkFindings(t, dir)
	for _, tc := range []struct{ file, says string }{
		{"pipeline/01-draft/CONTEXT.md", "input.md"},
		{"pipeline/02-review/CONTEXT.md", "what the stage does"},
		{"pipeline/02-review/CONTEXT.md", "Process"},
		{"CONTEXT.md", "02-review"},
	} {
		n := 0
		for _, f := range found {
			if f.Code == "unedited-skeleton" && f.Path == filepath.Join(dir, tc.file) && strings.Contains(f.Message, tc.says) {
				n++
				if f.Severity.String() != "info" || f.Data["fix"] == "" {
					t.Errorf("%s: %s %q (fix %q), want a note with a fix", tc.file, f.Severity, f.Message, f.Data["fix"])
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d notes about %q, want one", tc.file, n, tc.says)
		}
	}
	for _, f := range found {
		if f.Code == "unedited-skeleton" && f.Path == filepath.Join(dir, "pipeline/01-draft/CONTEXT.md") && !strings.Contains(f.Message, "input.md") {
			t.Errorf("icm init's own first stage is noted: %s", f.Message)
		}
	}
	editFile(t, dir, "pipeline/01-draft/input.md", "Replace this text", "A talk on")
	for _, f := range checkFindings(t, dir) {
		if f.Code == "unedited-skeleton" && strings.Contains(f.Message, "input.md") {
			t.Errorf("an edited input is still noted: %s", f.Message)
		}
	}
}

// icm check --conventions never flags the files icm itself writes: its
// state (.icm/), run history, the _config/ folder icm init makes, and the
// outputs a run wrote. A person's own misnamed file is still flagged.
func TestConventionsLeaveIcmsOwnFilesAlone(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	srv.On(ollamatest.UserContains("")).Reply(ollamatest.Text("# Draft\n\nA first draft of the idea."))
	dir := initWorkspace(t)
	if out, errOut, err := runIn(t, dir, map[string]string{"OLLAMA_HOST": srv.URL()}, "run"); err != nil {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "_config", "My Notes.md"), []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := runICM(t, "check", "--conventions", "-w", dir)
	if !strings.Contains(out, "My Notes.md") {
		t.Errorf("the person's misnamed file is not flagged:\n%s%s", out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, "[conventions]") || strings.Contains(l, "My Notes.md") {
			continue
		}
		for _, own := range []string{".icm", "_config", "history", "output/"} {
			if strings.Contains(l, own) {
				t.Errorf("icm's own %s is flagged: %s", own, l)
			}
		}
	}
}

// The Review Gate is described one way everywhere: icm check's note on
// it, icm help gates and the README say the same thing of it.
func TestReviewGateIsDescribedOneWay(t *testing.T) {
	const role = "a checklist for the person at the review gate, sent to the model as the author wrote it"
	dir := initWorkspace(t)
	editFile(t, dir, "pipeline/01-draft/CONTEXT.md", "## Verify", "## Review Gate\n- The draft keeps the input's facts.\n\n## Verify")
	out, _, _ := runICM(t, "check", "-w", dir)
	var note string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Review Gate") {
			note = l
		}
	}
	if !strings.Contains(note, role) {
		t.Errorf("check says of the Review Gate %q, want %q", note, role)
	}
	help, _, _ := runICM(t, "help", "gates")
	if !strings.Contains(strings.Join(strings.Fields(help), " "), role) {
		t.Errorf("icm help gates does not say the Review Gate is %q:\n%s", role, help)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil || !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), role) {
		t.Errorf("the README does not say the Review Gate is %q (%v)", role, err)
	}
}
