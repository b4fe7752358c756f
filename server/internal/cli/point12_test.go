package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// checkedStage is a workspace of one model stage whose output must have three
// to five `##` sections, so a short answer fails one of its two checks.
const checkedStage = `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "tiny"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write notes.

## Outputs
- notes.md -> output/

## Verify
- non-empty
- headings 3..5
`

// down is a model server address nothing listens on.
var down = map[string]string{"OLLAMA_HOST": "http://127.0.0.1:1"}

// TestForceApproveNeedsAnOutput: a stage whose only run failed before
// writing anything has nothing to approve, --force or not. Before, icm
// said "approved 01-a (1 output)" and recorded the output as "missing".
func TestForceApproveNeedsAnOutput(t *testing.T) {
	dir := wstest.Write(t, checkedStage)
	if _, _, code := runAsUser(t, dir, down, "run"); code == 0 {
		t.Fatal("a run without a model server succeeded")
	}
	out, errOut, code := runAsUser(t, dir, down, "approve", "01-a", "--force", "--note", "the run failed but the notes are fine")
	if code == 0 || strings.Contains(out, "approved") {
		t.Fatalf("approved an output that was never produced:\n%s%s", out, errOut)
	}
	if !strings.Contains(errOut, "no output to approve") || !strings.Contains(errOut, "icm run --stage 01-a") {
		t.Errorf("the refusal does not say why and what to do:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline/01-a/.icm/approval.json")); !os.IsNotExist(err) {
		t.Errorf("an approval was written (%v)", err)
	}
}

// TestVerifyFailureNextStep: after a run whose Verify checks fail, the
// stage's end line does not tick it off, and the next step is one that
// works: fix the output and approve, or approve it as it is with --force.
// Before, icm printed "✓ 01-a wrote 1 output" beside "1 of 2 checks
// failed", and then only `icm approve 01-a`, which is refused; status's
// next line said the same.
func TestVerifyFailureNextStep(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
	srv.Default(ollamatest.Text("# Notes\n\nonly a line"))
	dir := wstest.Write(t, checkedStage)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, errOut, code := runAsUser(t, dir, vars, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "✓ 01-a") || !strings.Contains(errOut, "01-a wrote 1 output; 1 of 2 Verify checks failed") {
		t.Errorf("the end line of a stage whose checks failed:\n%s", errOut)
	}
	if !strings.Contains(out, "icm approve 01-a --force --note REASON") || !strings.Contains(out, "fix ") {
		t.Errorf("the next step after failing checks is not one that works:\n%s", out)
	}
	if strings.Contains(out, "edit it if needed, then:\n  icm approve 01-a\n") {
		t.Errorf("the run suggests the approve that is refused:\n%s", out)
	}
	out, _, _ = runAsUser(t, dir, vars, "status")
	if !strings.Contains(out, "`icm approve 01-a --force --note REASON`") {
		t.Errorf("status's next line after failing checks:\n%s", out)
	}
	// What the next step says works.
	if _, errOut, code := runAsUser(t, dir, vars, "approve", "01-a", "--force", "--note", "one line is enough here"); code != 0 {
		t.Errorf("approve --force: %s", errOut)
	}
}

// TestRunJSONWithoutAServer: `icm run --json` that fails before any stage
// starts still ends with its JSON summary line on stdout, the error in
// it by kind, so a program reading stdout learns what went wrong. Before,
// stdout was empty and the error was plain text on stderr only.
func TestRunJSONWithoutAServer(t *testing.T) {
	dir := wstest.Write(t, checkedStage)
	out, _, code := runAsUser(t, dir, down, "run", "--json")
	if code == 0 {
		t.Fatal("a run without a model server succeeded")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		Kind, Error, Hint string
		ErrorKind         string `json:"error_kind"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("the last line of stdout is not JSON (%v):\n%s", err, out)
	}
	if last.Kind != "summary" || last.ErrorKind != "model-unreachable" || !strings.Contains(last.Error, "no model server at http://127.0.0.1:1") || last.Hint == "" {
		t.Errorf("the JSON summary of the failure: %+v", last)
	}
}

// TestCheckSummaryLine: run inside the workspace, check names it by its
// folder, not ".", and counts one stage as "1 stage". Before: ".: 1
// stages". The one note is icm init's placeholder input, not yet replaced.
func TestCheckSummaryLine(t *testing.T) {
	parent := t.TempDir()
	if _, errOut, code := runAsUser(t, parent, nil, "init", "notes"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	out, errOut, code := runAsUser(t, filepath.Join(parent, "notes"), nil, "check")
	if code != 0 || !strings.Contains(out, "notes: 1 stage, 0 errors, 0 warnings, 1 note\n") {
		t.Errorf("check inside the workspace: %d\n%s%s", code, out, errOut)
	}
	out, _, _ = runAsUser(t, parent, nil, "check", "-w", "notes")
	if !strings.Contains(out, "notes: 1 stage, ") {
		t.Errorf("check -w notes:\n%s", out)
	}
}

// TestNewStageHintKeepsTheWorkspaceFlag: the probe command new-stage
// suggests carries the -w it ran with. Before, it said plain `icm probe
// 02-review`, which from the parent folder finds no workspace.
func TestNewStageHintKeepsTheWorkspaceFlag(t *testing.T) {
	parent := t.TempDir()
	if _, errOut, code := runAsUser(t, parent, nil, "init", "notes"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	out, errOut, code := runAsUser(t, parent, nil, "new-stage", "review", "-w", "notes")
	if code != 0 || !strings.Contains(out, "`icm probe 02-review -w notes`") {
		t.Fatalf("new-stage -w notes: %d\n%s%s", code, out, errOut)
	}
	// The command it names works from where it was typed.
	if _, errOut, code := runAsUser(t, parent, nil, "probe", "02-review", "-w", "notes"); code != 0 {
		t.Errorf("the suggested probe: %s", errOut)
	}
}

// TestProbeModel: probe --model counts the stage as a run with that
// model (icm run --model) would send it, and says which model it
// counted for. Before, probe had no --model.
func TestProbeModel(t *testing.T) {
	dir := wstest.Write(t, checkedStage)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "tiny"},
		{[]string{"--model", "big:32b"}, "big:32b"},
	} {
		out, errOut, code := runAsUser(t, dir, down, append([]string{"probe", "01-a", "--json"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("probe %v: %d %s", tt.args, code, errOut)
		}
		var p struct {
			Count struct{ Model string }
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil || p.Count.Model != tt.want {
			t.Errorf("probe %v counted for %q (%v), want %q", tt.args, p.Count.Model, err, tt.want)
		}
		text, _, _ := runAsUser(t, dir, down, append([]string{"probe", "01-a", "--tokens"}, tt.args...)...)
		if !strings.Contains(text, "counted for "+tt.want) {
			t.Errorf("probe --tokens %v does not name the model:\n%s", tt.args, text)
		}
	}
}

// TestStartLineShowsTheExactCount: where the prompt can be counted
// exactly before the call (here an OpenAI-compatible server's /tokenize),
// the ▶ line shows that count, the one the server then reports, without
// the estimate's "~". Before, it showed icm's estimate (~819 where the
// real test server counted 3501).
func TestStartLineShowsTheExactCount(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}, Tokenize: ollamatest.TokenizeVLLM})
	srv.Default(ollamatest.Text("## One\n\n## Two\n\n## Three\n"))
	ws := strings.Replace(checkedStage, "[model]\nname = \"tiny\"\n", "[model]\nprovider = \"openai\"\nbase_url = \""+srv.URL()+"/v1\"\nname = \"tiny\"\ncontext_length = 32768\n", 1)
	dir := wstest.Write(t, ws)
	trusttest.Grant(t, dir) // it names its model server
	_, errOut, code := runAsUser(t, dir, nil, "run")
	if code != 0 {
		t.Fatalf("run: %s", errOut)
	}
	start := regexp.MustCompile(`▶ 01-a: (~?)([\d,]+) tokens -> tiny`).FindStringSubmatch(errOut)
	served := regexp.MustCompile(`model tiny: ([\d,]+) tokens in`).FindStringSubmatch(errOut)
	if start == nil || served == nil {
		t.Fatalf("no start or model line:\n%s", errOut)
	}
	if start[1] == "~" || start[2] != served[1] {
		t.Errorf("the start line says %s%s tokens where the count before the call was exact and the server read %s:\n%s", start[1], start[2], served[1], errOut)
	}
}
