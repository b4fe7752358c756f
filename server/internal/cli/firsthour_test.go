package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/usersettings"
)

// are, not cobra's count of arguments.
func TestProbeWithoutAStageNamesTheStages(t *testing.T) {
	dir := initWorkspace(t)
	_, errOut, code := runAsUser(t, dir, nil, "probe")
	if code == 0 || strings.Contains(errOut, "arg(s)") || !strings.Contains(errOut, "name the stage") || !strings.Contains(errOut, "01-draft") {
		t.Errorf("probe without a stage (exit %d):\n%s", code, errOut)
	}
}

// A mistyped flag gets the flag it was probably meant to be.
func TestMistypedFlagGetsTheFlagMeant(t *testing.T) {
	dir := initWorkspace(t)
	_, errOut, code := runAsUser(t, dir, nil, "run", "--stag", "01-draft")
	if code == 0 || !strings.Contains(errOut, "--stage") {
		t.Errorf("run --stag (exit %d) suggests nothing:\n%s", code, errOut)
	}
}

// A value of the wrong type reads as English: "an integer", once.
func TestConfigTypeErrorReadsAsEnglish(t *testing.T) {
	dir := initWorkspace(t)
	editFile(t, dir, "config.toml", "[model]", "[model]\nnum_ctx = \"big\"")
	out, _, _ := runICM(t, "check", "-w", dir)
	if strings.Contains(out, "a integer") || !strings.Contains(out, "icm reads an integer") || strings.Count(out, "integer") != 1 {
		t.Errorf("check says of a string where an integer goes:\n%s", out)
	}
}

// -w naming a file says it is a file, and which folder to give.
func TestWorkspaceFlagOnAFileSaysItIsAFile(t *testing.T) {
	dir := initWorkspace(t)
	file := filepath.Join(dir, "config.toml")
	_, errOut, code := runICM(t, "check", "-w", file)
	if code == 0 || strings.Contains(errOut, "no such folder") || !strings.Contains(errOut, "is a file") || !strings.Contains(errOut, "-w "+dir) {
		t.Errorf("check -w FILE (exit %d):\n%s", code, errOut)
	}
}

// -w on the folder above a workspace names the workspace inside it.
func TestWorkspaceFlagAboveAWorkspaceNamesIt(t *testing.T) {
	dir := initWorkspace(t)
	above := filepath.Dir(dir)
	_, errOut, code := runICM(t, "status", "-w", above)
	if code == 0 || !strings.Contains(errOut, "-w "+dir) {
		t.Errorf("status -w on the folder above a workspace (exit %d):\n%s", code, errOut)
	}
}

// neither errors nor warnings: note (docs/vocabulary.md).
func TestCheckCallsANoteANote(t *testing.T) {
	dir := initWorkspace(t)
	out, _, _ := runICM(t, "check", "-w", dir)
	if strings.Contains(out, ": info: ") || !strings.Contains(out, ": note: ") || !strings.Contains(out, "1 note") {
		t.Errorf("check's tags and count use two words:\n%s", out)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "vocabulary.md"))
	if err != nil || !strings.Contains(string(doc), "`note`") {
		t.Errorf("docs/vocabulary.md does not give the word for a note (%v)", err)
	}
}

// and ends with 130, the exit code the README gives for it.
func TestInterruptedRunSaysCancelledOnly(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	called := make(chan struct{})
	var once sync.Once
	srv.On(func(*ollamatest.Request) bool { once.Do(func() { close(called) }); return true }).Reply(ollamatest.Hang())
	dir := initWorkspace(t)
	if _, errOut, err := runIn(t, dir, nil, "trust", "--yes"); err != nil {
		t.Fatalf("trust: %v\n%s", err, errOut)
	}
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			switch k {
			case "OLLAMA_HOST":
				return srv.URL()
			case usersettings.ConfigDirEnv:
				return os.Getenv(k)
			}
			return ""
		}, Getwd: func() (string, error) { return dir, nil }}
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		select {
		case <-called:
		case <-time.After(time.Minute):
		}
		cancel(Interrupted(os.Interrupt))
	}()
	code := MainWith(ctx, env, []string{"run"})
	if code != 130 || strings.Contains(errb.String(), "failed") || !strings.Contains(errb.String(), "cancelled") {
		t.Errorf("Ctrl-C during a run: exit %d\n%s", code, errb.String())
	}
	readme, _ := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if !regexp.MustCompile(`130[^\n]*(Ctrl-C|interrupt)`).Match(readme) {
		t.Error("the README does not give Ctrl-C's exit code")
	}
}

// latest run of S when no --run is given.
func TestHistoryCallWithoutRunReadsTheLatest(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	srv.On(ollamatest.UserContains("")).Reply(ollamatest.Text("# Draft\n\nA first draft of the idea."))
	dir := initWorkspace(t)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if out, errOut, err := runIn(t, dir, vars, "run"); err != nil {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err := runIn(t, dir, vars, "history", "--stage", "01-draft", "--call", "1")
	if err != nil || !strings.Contains(out, "model call 1 of 01-draft") || !strings.Contains(out, "A first draft of the idea.") {
		t.Errorf("history --stage --call without --run: %v\n%s%s", err, out, errOut)
	}
}

// and tool events' included; the schema version says which style.
func TestRunJSONKeysAreSnakeCase(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	srv.On(ollamatest.UserContains("")).Reply(ollamatest.Text("# Draft\n\nA first draft of the idea."))
	dir := initWorkspace(t)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, errOut, err := runIn(t, dir, vars, "run", "--json")
	if err != nil {
		t.Fatalf("run --json: %v\n%s%s", err, out, errOut)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	models := 0
	bad := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if m, ok := v.(map[string]any); ok && m["kind"] == "model" {
			models++
		}
		walkKeys(v, func(k string) {
			if !snake.MatchString(k) {
				bad[k] = true
			}
		})
	}
	if len(bad) > 0 {
		t.Errorf("keys not in snake_case: %v", slices.Sorted(maps.Keys(bad)))
	}
	if models == 0 {
		t.Errorf("no model event in:\n%s", out)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "json.md"))
	if err != nil || !strings.Contains(string(doc), "prompt_tokens") || !strings.Contains(string(doc), "PromptTokens") {
		t.Errorf("docs/json.md does not document the keys and the old ones (%v)", err)
	}
}

// walkKeys calls f with every object key in v, at any depth; the
// arguments a model gave a tool are the tool's, not icm's, and are left.
func walkKeys(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			f(k)
			if k != "args" && k != "arguments" {
				walkKeys(e, f)
			}
		}
	case []any:
		for _, e := range x {
			walkKeys(e, f)
		}
	}
}

// The routing CONTEXT.md is compared with the stage folders: a stage it
// lists that has no folder is noted, with the folder meant as the fix.
func TestRoutingComparedWithTheStageFolders(t *testing.T) {
	dir := initWorkspace(t)
	editFile(t, dir, "CONTEXT.md", "1. `01-draft`", "1. `01-drafts`")
	out, _, _ := runICM(t, "check", "-w", dir)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ws/CONTEXT.md:") {
			lines = append(lines, l)
		}
	}
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "01-drafts") || !strings.Contains(joined, "`01-draft`") {
		t.Errorf("check does not compare the routing file with the stage folders:\n%s", out)
	}
	editFile(t, dir, "CONTEXT.md", "1. `01-drafts`", "1. `01-draft`")
	if out, _, _ := runICM(t, "check", "-w", dir); strings.Contains(out, "routing-stages") {
		t.Errorf("a routing file that names every stage gets a note:\n%s", out)
	}
}

// With both pipeline/ and stages/ holding stages, check says which is used
// and why, in English, also when they hold as many.
func TestBothStageFoldersSaysWhichAndWhy(t *testing.T) {
	dir := initWorkspace(t)
	src := filepath.Join(dir, "pipeline", "01-draft", "CONTEXT.md")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "stages", "01-other"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stages", "01-other", "CONTEXT.md"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runICM(t, "check", "-w", dir)
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "the stages are the numbered folders in pipeline/") {
			line = l
		}
	}
	if line == "" || strings.Contains(line, "1 of them hold ") || !strings.Contains(line, "stages/") || !strings.Contains(line, "as many") {
		t.Errorf("check does not say plainly which stage folder it uses and why:\n%s", out)
	}
}
