package workflow_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// researchHarness is course-research with 01-scope run and approved and
// 02-research checking its sources both ways (`sources` and
// `sources-from-tools`), its search server at searx.
func researchHarness(t *testing.T, searx string) *harness {
	t.Helper()
	h := newHarness(t, "course-research", ollamatest.Config{})
	h.wireServers(searx, model, "ollama")
	p := filepath.Join(h.dir, "pipeline/02-research/CONTEXT.md")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	with := strings.Replace(string(src), "- sources\n", "- sources\n- sources-from-tools\n", 1)
	if with == string(src) {
		t.Fatal("02-research's Verify section no longer lists `sources`")
	}
	if err := os.WriteFile(p, []byte(with), 0o644); err != nil {
		t.Fatal(err)
	}
	h.srv.On(ollamatest.UserContains("Write four to six learning")).Reply(ollamatest.Text("1. Install Ollama.\n2. Call the API."))
	h.mustRun(workflow.Options{})
	h.approve("01-scope")
	return h
}

func verifyResult(t *testing.T, res *report.StageResult, check string) state.VerifyResult {
	t.Helper()
	for _, v := range res.Verify {
		if v.Check == check {
			return v
		}
	}
	t.Fatalf("no %s check in %+v", check, res.Verify)
	return state.VerifyResult{}
}

// TestSourcesFromToolsFailsOnInventedURL: the only search fails (no
// SearXNG behind the search server) and the model writes notes citing a
// URL anyway. The failed call's error text is in the trace, the run record
// and the stage-end message; the stage is marked as one whose every tool
// call failed; and both source checks fail on the invented URL.
func TestSourcesFromToolsFailsOnInventedURL(t *testing.T) {
	h := researchHarness(t, "http://127.0.0.1:1")
	research := ollamatest.UserContains("For each learning objective, find one or two")
	h.srv.On(ollamatest.And(research, ollamatest.Not(ollamatest.HasToolResult("")))).Reply(
		ollamatest.Calls(ollamatest.Call("search-server_search", map[string]any{"query": "install ollama"})))
	invented := "https://docs.example.org/ollama/install"
	h.srv.On(ollamatest.And(research, ollamatest.HasToolResult("search-server_search"))).Reply(ollamatest.Text(
		"## Install Ollama\n- It listens on port 11434.\nSources: " + invented + "\n\n## Call the API\n- POST /api/chat.\nSources: " + invented + "\n"))
	sum := h.mustRun(workflow.Options{})
	res := sum.Ran[0]
	if res.ToolCalls != 1 || res.ToolErrors != 1 || len(res.ToolFailures) != 1 || res.ToolFailures[0].Error == "" {
		t.Fatalf("tool calls %d, errors %d, failures %+v", res.ToolCalls, res.ToolErrors, res.ToolFailures)
	}
	for _, check := range []string{"sources", "sources-from-tools"} {
		v := verifyResult(t, res, check)
		if v.OK || len(v.Findings) == 0 || !strings.Contains(v.Findings[0].Message, invented) || v.Findings[0].Line == 0 {
			t.Errorf("%s passed an invented URL: %+v", check, v)
		}
	}

	// The trace and the run record say what went wrong, in words.
	var toolEv *report.Event
	for i := range h.events {
		if h.events[i].Kind == report.EventTool {
			toolEv = &h.events[i]
		}
	}
	if toolEv == nil || !toolEv.Tool.IsError || toolEv.Tool.Err == "" || !strings.Contains(toolEv.Message, "failed: ") {
		t.Fatalf("tool event: %+v", toolEv)
	}
	trace, err := os.ReadFile(workflow.TracePath(h.ws(), sum.RunID))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(trace)), "\n") {
		var ev report.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Kind == report.EventTool && (ev.Tool == nil || ev.Tool.Err == "") {
			t.Errorf("a failed tool call is in the trace without its error: %s", line)
		}
	}
	s := stageState(t, h.ws(), "02-research")
	if s.Record.ToolErrors != 1 || s.Record.ToolFailures[0].Error != res.ToolFailures[0].Error || !s.ToolsFailed {
		t.Errorf("run record: errors %d, failures %+v, all failed %v", s.Record.ToolErrors, s.Record.ToolFailures, s.ToolsFailed)
	}
	// The one phrase for it, in the face, the stage's end and the run's
	// tree alike (before: three).
	if f := state.FaceOf(s, false, ""); !strings.Contains(f.Detail, "1 of 1 tool call failed") {
		t.Errorf("02-research reads %q", f.Text())
	}
	var end *report.Event
	for i := range h.events {
		if h.events[i].Kind == report.EventStageEnd && h.events[i].Stage == "02-research" {
			end = &h.events[i]
		}
	}
	if end == nil || !strings.Contains(end.Message, "1 of 1 tool call failed") {
		t.Errorf("stage end: %+v", end)
	}
	run, err := workflow.Run(h.ws(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range run.Tree {
		if n.Stage == "02-research" && (!strings.Contains(n.Text, "  1 of 1 tool call failed") || !strings.Contains(n.Text, " tokens in / 57 out")) {
			t.Errorf("the run's tree: %q", n.Text)
		}
	}
}

// TestSourcesFromToolsPassesOnFetchedURL: the URL the notes cite is one
// the search returned and the reader read; both checks pass, and keep
// passing when the person approves later.
func TestSourcesFromToolsPassesOnFetchedURL(t *testing.T) {
	site := sites.New(t)
	pageURL := site.URL + sites.PathLong
	searx := fakesearx.New(t, func(q string) []fakesearx.Result {
		return []fakesearx.Result{{Title: "Install guide", URL: pageURL, Content: "How to install."}}
	})
	h := researchHarness(t, searx.URL)
	scriptCourse(h.srv, pageURL)
	sum := h.mustRun(workflow.Options{})
	res := sum.Ran[0]
	if res.ToolErrors != 0 || res.ToolCalls != 2 {
		t.Fatalf("tool calls %d, errors %d: %+v", res.ToolCalls, res.ToolErrors, res.ToolFailures)
	}
	for _, check := range []string{"sources", "sources-from-tools"} {
		if v := verifyResult(t, res, check); !v.OK {
			t.Errorf("%s failed on a fetched URL: %+v", check, v)
		}
	}
	// The trace holds each call's whole request and its reply.
	r, err := workflow.Run(h.ws(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := workflow.FindExchange(r, "02-research", 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	roles := []string{}
	for _, m := range ex.Request {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,assistant,tool" || !strings.Contains(ex.Request[1].Content, "For each learning objective") {
		t.Errorf("call 3's request: roles %v", roles)
	}
	if ex.Call.Reply == nil || !strings.Contains(ex.Call.Reply.Content, "Sources: "+pageURL) || len(ex.Call.Tools) != 5 {
		t.Errorf("call 3: reply %+v, tools %v", ex.Call.Reply, ex.Call.Tools)
	}
	if _, err := workflow.FindExchange(r, "02-research", 0, 9); err == nil {
		t.Error("a call that was never made was found")
	}
	h.approve("02-research")

	// A person adds a source nobody read: approving now refuses.
	notes := filepath.Join(h.dir, "pipeline/02-research/output/notes.md")
	text := h.read("pipeline/02-research/output/notes.md")
	os.WriteFile(notes, []byte(strings.Replace(text, "Sources: "+pageURL, "Sources: "+pageURL+" https://made.up/page", 1)), 0o644)
	if _, err := workflow.Approve(context.Background(), h.ws(), "02-research", workflow.ApproveOptions{Permit: trusted(h.ws())}); err == nil || !strings.Contains(err.Error(), "https://made.up/page") {
		t.Errorf("approving an output citing an unread page: %v", err)
	}
}
