package workflow_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// lighthouse is a stage that names, in its Process, a file it does not
// list as an input; a file it names only in a comment; and a file the
// workspace holds that it never names.
const lighthouse = `
-- CLAUDE.md --
# Identity
You keep a lighthouse log.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- stages/01-log/CONTEXT.md --
# Stage: 01-log

## Inputs
- Layer 4 (working): watch.md

## Process
Write tonight's log entry. Check ` + "`_config/signals.md`" + ` for the lamp's signal codes.
<!-- the keeper's diary is in ` + "`_config/diary.md`" + ` -->

## Outputs
- log.md -> output/
-- stages/01-log/watch.md --
Fog from nine.
-- _config/signals.md --
Two flashes every ten seconds.
-- _config/diary.md --
Private.
-- _config/supplies.md --
Oil, wicks.
`

func readCall(p string) ollamatest.ToolCall {
	return ollamatest.Call("read_file", map[string]any{"path": p})
}

// The model reads what the contract names through icm's read tool: a
// file named in a sentence is read and kept in the run's record and its
// trace, and a change to it makes the stage stale; a file named only in
// a comment, or nowhere, is refused with a message, and the run goes on.
func TestTheReadToolReadsWhatTheContractNames(t *testing.T) {
	h := harnessIn(t, wstest.Write(t, lighthouse), ollamatest.Config{})
	h.srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(
		readCall("_config/signals.md"), readCall("_config/diary.md"), readCall("_config/supplies.md")))
	h.srv.Default(ollamatest.Text("Fog from nine; two flashes every ten seconds."))
	h.mustRun(workflow.Options{})

	reqs := h.srv.ChatRequests()
	if names := strings.Join(reqs[0].ToolNames(), ","); names != "read_file" {
		t.Errorf("tools offered = %s, want read_file", names)
	}
	if u := reqs[0].LastUser(); !strings.Contains(u, "- `_config/signals.md` (31 bytes)") || strings.Contains(u, "diary") {
		t.Errorf("the prompt does not list the file named in a sentence alone:\n%s", u)
	}
	results := toolTexts(reqs[len(reqs)-1])
	if len(results) != 3 || results[0] != "Two flashes every ten seconds.\n" {
		t.Fatalf("tool results = %q", results)
	}
	for _, refused := range results[1:] {
		if !strings.Contains(refused, "is not a file this stage's contract names") || !strings.Contains(refused, "_config/signals.md") {
			t.Errorf("a file the contract does not name was not refused with what may be read: %q", refused)
		}
	}

	s := stageState(t, h.ws(), "01-log")
	want := map[string]string{"_config/signals.md": state.Hash([]byte("Two flashes every ten seconds.\n"))}
	if s.Status != state.Awaiting || len(s.Record.Reads) != 1 || s.Record.Reads["_config/signals.md"] != want["_config/signals.md"] {
		t.Fatalf("status %s, reads recorded %v, want %v", s.Status, s.Record.Reads, want)
	}
	traced := 0
	for _, ev := range h.events {
		if ev.Kind == report.EventTool && ev.Tool != nil && ev.Tool.Name == "read_file" && ev.Tool.Server == "icm" {
			traced++
		}
	}
	if traced != 3 {
		t.Errorf("%d read calls in the run's events, want 3", traced)
	}

	h.approve("01-log")
	if err := os.WriteFile(filepath.Join(h.dir, "_config/supplies.md"), []byte("Oil only.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := stageState(t, h.ws(), "01-log"); s.Status != state.Approved {
		t.Fatalf("a file the model was refused changed, and the stage is %s (%s)", s.Status, s.Reason)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "_config/signals.md"), []byte("Three flashes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := stageState(t, h.ws(), "01-log"); s.Status != state.Stale || !strings.Contains(s.Reason, "_config/signals.md") {
		t.Errorf("the file the model read changed, and the stage is %s (%s), not stale", s.Status, s.Reason)
	}
}

// What the model read through a tool is kept with the run's record, so
// what its output rests on can be worked out after the run.
func TestToolResultsAreKeptWithTheRun(t *testing.T) {
	h := harnessIn(t, wstest.Write(t, lighthouse), ollamatest.Config{})
	h.srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(readCall("_config/signals.md")))
	h.srv.Default(ollamatest.Text("Fog from nine; two flashes every ten seconds."))
	h.mustRun(workflow.Options{})

	s := stageState(t, h.ws(), "01-log")
	kept, err := state.ReadToolResults(h.ws().Disk, stageDir(t, h, "01-log"), s.Record.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if kept == nil || len(kept.Results) != 1 {
		t.Fatalf("tool results kept: %+v", kept)
	}
	r := kept.Results[0]
	if r.Name != "read_file" || r.Text != "Two flashes every ten seconds.\n" || !strings.Contains(r.Args, "_config/signals.md") || r.Call != 1 {
		t.Errorf("kept %+v", r)
	}
	if other, err := state.ReadToolResults(h.ws().Disk, stageDir(t, h, "01-log"), "another-run"); err != nil || other != nil {
		t.Errorf("another run's record read these results: %+v, %v", other, err)
	}
}

func stageDir(t *testing.T, h *harness, name string) string {
	t.Helper()
	st, err := h.ws().Stage(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Dir
}
