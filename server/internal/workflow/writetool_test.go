package workflow_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// trips is a stage in the ICM template's notation whose outputs the model
// must name: a placeholder in one, a folder, and a plain summary.
const trips = `
-- CLAUDE.md --
# Identity
You plan trips.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- stages/01-trip/CONTEXT.md --
# Stage: 01-trip

## Inputs
| Source | File/Location | Section/Scope | Why |
|---|---|---|---|
| Brief | brief.md | Full file | what the trip is |

## Process
Plan the trip and write one page per day.

## Outputs
| Artifact | Location | Format |
|---|---|---|
| Plan | output/[trip-slug]-plan.md | Markdown |
| Days | output/days/ | one Markdown file per day |
| Summary | output/summary.md | three lines |
-- stages/01-trip/brief.md --
Two days on the coast.
`

func newTrips(t *testing.T, caps []string) *harness {
	t.Helper()
	return newOn(t, trips, caps)
}

// newOn is a harness on the workspace of a txtar, with a scripted model
// of those capabilities.
func newOn(t *testing.T, txtar string, caps []string) *harness {
	t.Helper()
	cfg := ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768, Family: "qwen3", Capabilities: caps}}}
	h := &harness{t: t, dir: wstest.Write(t, txtar), srv: ollamatest.New(t, cfg)}
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(h.srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	return h
}

func write(path, content string) ollamatest.ToolCall {
	return ollamatest.Call("write_output", map[string]any{"path": path, "content": content})
}

// scriptWrites answers the first call with the writes, every later one
// (after the tool results) with a line of summary.
func scriptWrites(h *harness, calls ...ollamatest.ToolCall) {
	h.srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(calls...))
	h.srv.Default(ollamatest.Text("Wrote the plan, two days and the summary."))
}

// A stage whose outputs the model names runs through the write tool: the
// tool is offered with the declared outputs, a path that fits none is
// refused (and the model told what fits), every accepted file is written,
// hashed into the record, listed as the stage's outputs, kept as the
// model's version and approvable; a re-run replaces them, removes what it
// did not write again, and keeps the old ones as a version.
func TestWriteToolRunsATemplateStage(t *testing.T) {
	h := newTrips(t, []string{"completion", "tools"})
	scriptWrites(h,
		write("output/coast-plan.md", "# Coast plan\n"),
		write("output/days/day-1.md", "# Day 1\n"),
		write("days/day-2.md", "# Day 2\n"),
		write("output/notes.md", "not declared"),
		write("../../escape.md", "out"),
		write("output/summary.md", "Two days.\n"),
	)
	sum := h.mustRun(workflow.Options{})
	res := sum.Ran[0]
	want := []string{"stages/01-trip/output/coast-plan.md", "stages/01-trip/output/days/day-1.md", "stages/01-trip/output/days/day-2.md", "stages/01-trip/output/summary.md"}
	if strings.Join(res.Outputs, ",") != strings.Join(want, ",") {
		t.Fatalf("outputs = %v, want %v", res.Outputs, want)
	}
	reqs := h.srv.ChatRequests()
	first := reqs[0]
	if names := first.ToolNames(); len(names) != 1 || names[0] != "write_output" {
		t.Errorf("tools offered = %v, want write_output alone", names)
	}
	if desc := string(mustJSON(t, first.Tools)); !strings.Contains(desc, "output/[trip-slug]-plan.md (fill in [trip-slug])") || !strings.Contains(desc, "any file in output/days/") {
		t.Errorf("the tool does not name the outputs: %s", desc)
	}
	if u := first.LastUser(); !strings.Contains(u, "## Outputs\n\n| Artifact") || !strings.Contains(u, "The files icm accepts:\n- output/[trip-slug]-plan.md") || !strings.Contains(u, "## Process\n\nPlan the trip") {
		t.Errorf("the user text lacks the contract or the writing instructions:\n%s", u)
	}
	results := strings.Join(toolTexts(reqs[len(reqs)-1]), "\n")
	for _, w := range []string{"Not written: output/notes.md fits none of this stage's outputs", "climbs out", "Written output/summary.md"} {
		if !strings.Contains(results, w) {
			t.Errorf("tool results lack %q:\n%s", w, results)
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "escape.md")); err == nil {
		t.Error("a path out of the stage was written")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "stages/01-trip/output/notes.md")); err == nil {
		t.Error("a path no output declares was written")
	}
	s := stageState(t, h.ws(), "01-trip")
	if s.Status != state.Awaiting || len(s.Record.Outputs) != 4 || s.Record.Outputs["stages/01-trip/output/days/day-2.md"] != state.Hash([]byte("# Day 2\n")) {
		t.Fatalf("state = %s, record outputs = %v", s.Status, s.Record.Outputs)
	}
	st := mustStage(t, h, "01-trip")
	if data, err := os.ReadFile(workflow.ModelVersionPath(h.ws(), st, "stages/01-trip/output/days/day-1.md")); err != nil || string(data) != "# Day 1\n" {
		t.Errorf("model's version of day-1 = %q, %v", data, err)
	}
	h.approve("01-trip")
	if got := h.status()["01-trip"]; got != state.Approved {
		t.Fatalf("after approve: %s", got)
	}

	// Run again: the model names other files; the ones it did not write
	// again go, and the first run's are kept as a version.
	h.srv = nil
	h2 := newTrips(t, []string{"completion", "tools"})
	h2.dir = h.dir
	scriptWrites(h2, write("output/cliff-plan.md", "# Cliff plan\n"), write("output/days/day-1.md", "# Day 1, again\n"), write("output/summary.md", "One day.\n"))
	h2.mustRun(workflow.Options{Stage: "01-trip"})
	for _, gone := range []string{"coast-plan.md", "days/day-2.md"} {
		if _, err := os.Stat(filepath.Join(h.dir, "stages/01-trip/output", gone)); err == nil {
			t.Errorf("%s, not written again, is still an output", gone)
		}
	}
	vs, err := workflow.Versions(h2.ws(), "01-trip")
	if err != nil || len(vs) != 1 || vs[0].Files["days/day-2.md"] == "" || vs[0].Files["coast-plan.md"] == "" {
		t.Errorf("versions = %+v, %v: want the first run's four files kept", vs, err)
	}
}

// A model that cannot call tools gets the same through one answer: from
// Ollama, asked for with format (a JSON schema of paths and contents) and
// no tools; the files it names are checked like the tool's, so one that
// fits no output fails the run and writes nothing.
func TestPlainFallbackWithFormat(t *testing.T) {
	h := newTrips(t, []string{"completion"})
	h.srv.Default(ollamatest.JSON(map[string]any{"files": []map[string]any{
		{"path": "output/coast-plan.md", "content": "# Plan"},
		{"path": "output/days/one.md", "content": "# One"},
		{"path": "output/summary.md", "content": "Short."},
	}}))
	res := h.mustRun(workflow.Options{}).Ran[0]
	if len(res.Outputs) != 3 {
		t.Fatalf("outputs = %v", res.Outputs)
	}
	req := h.srv.ChatRequests()[0]
	if len(req.Tools) != 0 || !strings.Contains(string(req.Format), `"files"`) || !strings.Contains(req.LastUser(), `Answer with one JSON object`) {
		t.Errorf("the fallback request: tools %v, format %s", req.ToolNames(), req.Format)
	}

	bad := newTrips(t, []string{"completion"})
	bad.srv.Default(ollamatest.JSON(map[string]any{"files": []map[string]any{{"path": "output/elsewhere.txt", "content": "x"}}}))
	if _, err := bad.run(workflow.Options{}); err == nil || !strings.Contains(err.Error(), "fits none of this stage's outputs") {
		t.Errorf("run = %v, want the file refused", err)
	}
	if _, err := os.Stat(filepath.Join(bad.dir, "stages/01-trip/output")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(bad.dir, "stages/01-trip/output"))
		if len(entries) > 0 {
			t.Errorf("a refused answer wrote %v", entries)
		}
	}
}

// A model that answers in the plain format instead of calling the tool is
// taken at its word, strictly.
func TestPlainAnswerFromAToolModel(t *testing.T) {
	h := newTrips(t, []string{"completion", "tools"})
	h.srv.Default(ollamatest.Text("path: output/a-plan.md\n````\n# A\n````\n\npath: output/days/d1.md\n```\nday\n```\npath: output/summary.md\n```\nok\n```\n"))
	res := h.mustRun(workflow.Options{}).Ran[0]
	if len(res.Outputs) != 3 || h.read("stages/01-trip/output/a-plan.md") != "# A\n" {
		t.Errorf("outputs = %v", res.Outputs)
	}
	none := newTrips(t, []string{"completion", "tools"})
	none.srv.Default(ollamatest.Text("I planned it in my head."))
	if _, err := none.run(workflow.Options{}); err == nil || !strings.Contains(err.Error(), "the model wrote no output file") {
		t.Errorf("run = %v, want no output file", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toolTexts(r *ollamatest.Request) []string {
	var out []string
	for _, m := range r.ToolResults() {
		out = append(out, m.Content)
	}
	return out
}
