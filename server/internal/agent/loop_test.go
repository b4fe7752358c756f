package agent

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func TestRun(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)
	long := "HEAD " + strings.Repeat("lorem ipsum ", 500) + " TAIL"

	tests := []struct {
		name    string
		cfg     Config
		noTools bool
		answer  func(string, map[string]any) (ToolResult, error)
		turns   []ollamatest.Turn

		wantStop       string
		wantOutput     string
		wantModelCalls int
		wantToolRuns   int // calls that reached Tools.Call
		wantKinds      []string
		check          func(t *testing.T, res *Result, srv *ollamatest.Server, rec *recorder)
	}{
		{
			name:           "final answer without tools",
			noTools:        true,
			turns:          []ollamatest.Turn{ollamatest.Text("# Plan\n\n- one")},
			wantStop:       StopDone,
			wantOutput:     "# Plan\n\n- one",
			wantModelCalls: 1,
			wantKinds:      []string{"model", "stop"},
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				if n := len(srv.ChatRequests()[0].Tools); n != 0 {
					t.Errorf("%d tools offered, want none", n)
				}
			},
		},
		{
			name:           "tool call then answer",
			turns:          []ollamatest.Turn{ollamatest.Calls(search("go modules")), ollamatest.Text("Modules version Go code.")},
			wantStop:       StopDone,
			wantOutput:     "Modules version Go code.",
			wantModelCalls: 2,
			wantToolRuns:   1,
			wantKinds:      []string{"model", "tool", "model", "stop"},
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				reqs := srv.ChatRequests()
				if got := reqs[0].ToolNames(); !reflect.DeepEqual(got, []string{"search_search", "browser_fetch"}) {
					t.Errorf("offered %v", got)
				}
				results := reqs[1].ToolResults()
				if len(results) != 1 || results[0].ToolName != "search_search" || results[0].ToolCallID == "" ||
					!strings.Contains(results[0].Content, `"query":"go modules"`) {
					t.Errorf("second call's tool results: %+v", results)
				}
				// system, user, assistant with the call, tool result, final answer
				roles := []string{}
				for _, m := range res.Messages {
					roles = append(roles, m.Role)
				}
				if want := []string{"system", "user", "assistant", "tool", "assistant"}; !reflect.DeepEqual(roles, want) {
					t.Errorf("roles %v, want %v", roles, want)
				}
				if len(res.Messages) != 5 {
					t.Fatalf("%d messages", len(res.Messages))
				}
				if call := res.Messages[2].ToolCalls; len(call) != 1 || call[0].ID != res.Messages[3].ToolCallID {
					t.Errorf("tool message does not answer the call: %+v / %+v", call, res.Messages[3])
				}
			},
		},
		{
			name:           "stuck guard ends the loop and synthesizes",
			cfg:            Config{Synthesize: true},
			turns:          []ollamatest.Turn{ollamatest.Calls(search("go")), ollamatest.Calls(search("go")), ollamatest.Calls(search("go")), ollamatest.Text("# Report\n\nFrom two searches.")},
			wantStop:       StopStuck,
			wantOutput:     "# Report\n\nFrom two searches.",
			wantModelCalls: 4,
			wantToolRuns:   2,
			wantKinds:      []string{"model", "tool", "model", "tool", "model", "synthesize", "model", "stop"},
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, rec *recorder) {
				last := srv.LastChat()
				if len(last.Tools) != 0 {
					t.Errorf("the synthesize call offered %d tools", len(last.Tools))
				}
				if !strings.Contains(last.LastUser(), synthesizeInstruction) {
					t.Errorf("the synthesize call's user message is %q", last.LastUser())
				}
				if got := rec.nth(t, EventSynthesize, 0).StopReason; got != StopStuck {
					t.Errorf("synthesize event reason %q", got)
				}
				results := last.ToolResults()
				if n := len(results); n != 3 || !strings.HasPrefix(results[2].Content, "Not run") {
					t.Errorf("the third identical call must be answered without running: %+v", results)
				}
				if first, last := rec.nth(t, EventModel, 0), rec.nth(t, EventModel, -1); last.Model.Purpose != PurposeSynthesize || first.Model.Purpose != PurposeLoop {
					t.Errorf("model call purposes: first %q, last %q", first.Model.Purpose, last.Model.Purpose)
				}
			},
		},
		{
			name:           "stuck guard without synthesize",
			turns:          []ollamatest.Turn{ollamatest.Calls(search("go")), ollamatest.Calls(search("go")), ollamatest.Calls(search("go"))},
			wantStop:       StopStuck,
			wantOutput:     "",
			wantModelCalls: 3,
			wantToolRuns:   2,
			wantKinds:      []string{"model", "tool", "model", "tool", "model", "stop"},
		},
		{
			name: "stuck guard counts identical calls within one turn",
			cfg:  Config{StuckRepeats: 2, Synthesize: true},
			turns: []ollamatest.Turn{
				ollamatest.Calls(search("go"), search("go"), search("rust")),
				ollamatest.Text("synthesized"),
			},
			wantStop:       StopStuck,
			wantOutput:     "synthesized",
			wantModelCalls: 2,
			wantToolRuns:   1,
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				results := srv.LastChat().ToolResults()
				if len(results) != 3 || results[2].Content != notRunAfterStop {
					t.Errorf("every call of the turn needs an answer: %+v", results)
				}
			},
		},
		{
			name: "different arguments reset the stuck count",
			turns: []ollamatest.Turn{
				ollamatest.Calls(search("a")), ollamatest.Calls(search("a")),
				ollamatest.Calls(search("b")), ollamatest.Calls(search("b")),
				ollamatest.Calls(search("a")), ollamatest.Text("done"),
			},
			wantStop:       StopDone,
			wantOutput:     "done",
			wantModelCalls: 6,
			wantToolRuns:   5,
		},
		{
			name: "tool-call limit",
			cfg:  Config{MaxToolCalls: 3, Synthesize: true},
			turns: []ollamatest.Turn{
				ollamatest.Calls(search("1")), ollamatest.Calls(search("2")),
				ollamatest.Calls(search("3"), search("4")),
				ollamatest.Text("limited answer"),
			},
			wantStop:       StopToolLimit,
			wantOutput:     "limited answer",
			wantModelCalls: 4,
			wantToolRuns:   3,
			wantKinds:      []string{"model", "tool", "model", "tool", "model", "tool", "synthesize", "model", "stop"},
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				last := srv.LastChat()
				results := last.ToolResults()
				if len(results) != 4 || !strings.Contains(results[3].Content, "limit of 3 tool calls") {
					t.Errorf("the call over the limit must be answered without running: %+v", results)
				}
				if !strings.Contains(last.LastUser(), "all 3 tool calls") || len(last.Tools) != 0 {
					t.Errorf("synthesize call: tools %d, user %q", len(last.Tools), last.LastUser())
				}
			},
		},
		{
			name: "unknown tool and bad arguments are answered and the loop goes on",
			turns: []ollamatest.Turn{
				ollamatest.Calls(ollamatest.Call("shell_exec", map[string]any{"cmd": "ls"})),
				ollamatest.Calls(ollamatest.Call("search_search", map[string]any{"q": "go"})),
				ollamatest.Calls(search("go")),
				ollamatest.Text("answer"),
			},
			wantStop:       StopDone,
			wantOutput:     "answer",
			wantModelCalls: 4,
			wantToolRuns:   3,
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, rec *recorder) {
				results := srv.LastChat().ToolResults()
				if len(results) != 3 || !strings.Contains(results[0].Content, `unknown tool "shell_exec"`) ||
					!strings.Contains(results[1].Content, `argument "query" is required`) {
					t.Errorf("tool results: %+v", results)
				}
				tools := rec.of(EventTool)
				if len(tools) != 3 {
					t.Fatalf("%d tool events", len(tools))
				}
				if !tools[0].Tool.IsError || !tools[1].Tool.IsError || tools[2].Tool.IsError {
					t.Errorf("IsError flags: %v %v %v", tools[0].Tool.IsError, tools[1].Tool.IsError, tools[2].Tool.IsError)
				}
				if tools[1].Tool.Server != "search" || tools[1].Tool.Tool != "search" || tools[1].Tool.Args["q"] != "go" {
					t.Errorf("tool event: %+v", tools[1].Tool)
				}
				// A failed call's error text is what the tool said, never empty.
				if !strings.Contains(tools[0].Tool.Err, `unknown tool "shell_exec"`) || !strings.Contains(tools[1].Tool.Err, `argument "query" is required`) || tools[2].Tool.Err != "" {
					t.Errorf("tool errors: %q / %q / %q", tools[0].Tool.Err, tools[1].Tool.Err, tools[2].Tool.Err)
				}
				if res.ToolErrors != 2 {
					t.Errorf("ToolErrors = %d, want 2", res.ToolErrors)
				}
			},
		},
		{
			name:           "long results are cut head and tail",
			cfg:            Config{MaxToolResultChars: 500},
			answer:         func(string, map[string]any) (ToolResult, error) { return ToolResult{Text: long}, nil },
			turns:          []ollamatest.Turn{ollamatest.Calls(search("go")), ollamatest.Text("answer")},
			wantStop:       StopDone,
			wantOutput:     "answer",
			wantModelCalls: 2,
			wantToolRuns:   1,
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, rec *recorder) {
				results := srv.LastChat().ToolResults()
				if len(results) != 1 {
					t.Fatalf("%d tool results", len(results))
				}
				got := results[0].Content
				if !strings.HasPrefix(got, "HEAD ") || !strings.HasSuffix(got, " TAIL") || !cutMarker.MatchString(got) || utf8.RuneCountInString(got) > 500 {
					t.Errorf("cut result (%d chars): %q", utf8.RuneCountInString(got), got)
				}
				ev := rec.nth(t, EventTool, 0).Tool
				if !ev.Truncated || ev.ResultSize != len(long) {
					t.Errorf("tool event: truncated %v, size %d, want true, %d", ev.Truncated, ev.ResultSize, len(long))
				}
			},
		},
		{
			name: "an empty answer after tool results is nudged once",
			turns: []ollamatest.Turn{
				ollamatest.Calls(search("go")), ollamatest.Text(""), ollamatest.Text("the answer"),
			},
			wantStop:       StopDone,
			wantOutput:     "the answer",
			wantModelCalls: 3,
			wantToolRuns:   1,
			wantKinds:      []string{"model", "tool", "model", "nudge", "model", "stop"},
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				if got := srv.LastChat().LastUser(); got != nudgeText(true) {
					t.Errorf("last user message %q, want the nudge", got)
				}
			},
		},
		{
			name: "a second empty answer ends the loop and synthesizes",
			cfg:  Config{Synthesize: true},
			turns: []ollamatest.Turn{
				ollamatest.Calls(search("go")), ollamatest.Text(""), ollamatest.ThinkTags("nothing to add", ""), ollamatest.Text("synthesized"),
			},
			wantStop:       StopEmpty,
			wantOutput:     "synthesized",
			wantModelCalls: 4,
			wantToolRuns:   1,
			wantKinds:      []string{"model", "tool", "model", "nudge", "model", "synthesize", "model", "stop"},
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				if last := srv.LastChat(); len(last.Tools) != 0 || !strings.Contains(last.LastUser(), "You gave no answer.") {
					t.Errorf("synthesize call: tools %d, user %q", len(last.Tools), last.LastUser())
				}
			},
		},
		{
			name:           "a second empty answer without synthesize",
			noTools:        true,
			turns:          []ollamatest.Turn{ollamatest.Text(" \n"), ollamatest.Text("")},
			wantStop:       StopEmpty,
			wantOutput:     "",
			wantModelCalls: 2,
			wantKinds:      []string{"model", "nudge", "model", "stop"},
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				if got := srv.LastChat().LastUser(); got != nudgeText(false) {
					t.Errorf("nudge without tools: %q", got)
				}
			},
		},
		{
			name:           "an answer cut for length is incomplete",
			turns:          []ollamatest.Turn{ollamatest.Calls(search("go")), ollamatest.Length("# Report\n\nThe first half")},
			wantStop:       StopIncomplete,
			wantOutput:     "# Report\n\nThe first half",
			wantModelCalls: 2,
			wantToolRuns:   1,
			check: func(t *testing.T, res *Result, _ *ollamatest.Server, rec *recorder) {
				if !res.Incomplete {
					t.Errorf("Incomplete is false")
				}
				if m := rec.nth(t, EventModel, 1).Model; !m.Incomplete || m.DoneReason != "length" {
					t.Errorf("model event: incomplete %v, done reason %q", m.Incomplete, m.DoneReason)
				}
			},
		},
		{
			name: "a synthesized answer cut for length is incomplete",
			cfg:  Config{MaxToolCalls: 1, Synthesize: true},
			turns: []ollamatest.Turn{
				ollamatest.Calls(search("a")), ollamatest.Calls(search("b")), ollamatest.Length("half"),
			},
			wantStop:       StopIncomplete,
			wantOutput:     "half",
			wantModelCalls: 3,
			wantToolRuns:   1,
			check: func(t *testing.T, res *Result, _ *ollamatest.Server, rec *recorder) {
				if !res.Incomplete || rec.nth(t, EventSynthesize, 0).StopReason != StopToolLimit {
					t.Errorf("incomplete %v, synthesize events %+v", res.Incomplete, rec.of(EventSynthesize))
				}
			},
		},
		{
			name: "a broken tool is reported to the model and recorded",
			answer: func(name string, _ map[string]any) (ToolResult, error) {
				return ToolResult{}, errors.New(`MCP server "search" exited (exit status 2)`)
			},
			turns:          []ollamatest.Turn{ollamatest.Calls(search("go")), ollamatest.Text("answer without the search")},
			wantStop:       StopDone,
			wantOutput:     "answer without the search",
			wantModelCalls: 2,
			wantToolRuns:   1,
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, rec *recorder) {
				if got := srv.LastChat().ToolResults(); len(got) != 1 || !strings.Contains(got[0].Content, "The tool failed") || !strings.Contains(got[0].Content, "exit status 2") {
					t.Errorf("the model saw %+v", got)
				}
				if ev := rec.nth(t, EventTool, 0).Tool; !ev.IsError || !strings.Contains(ev.Err, "exited") {
					t.Errorf("tool event: %+v", ev)
				}
			},
		},
		{
			name:           "thinking and chat wrapper are cleaned from the output",
			noTools:        true,
			turns:          []ollamatest.Turn{ollamatest.ThinkTags("plan the outline", "Sure! Here is the outline:\n\n```markdown\n# Outline\n```\n\nLet me know if you want changes.")},
			wantStop:       StopDone,
			wantOutput:     "# Outline",
			wantModelCalls: 1,
			check: func(t *testing.T, res *Result, _ *ollamatest.Server, _ *recorder) {
				if !strings.Contains(res.Raw, "Let me know") {
					t.Errorf("Raw lost the model's text: %q", res.Raw)
				}
			},
		},
		{
			name:           "format without tools is one structured call",
			noTools:        true,
			cfg:            Config{Format: schema},
			turns:          []ollamatest.Turn{ollamatest.JSON(map[string]any{"title": "Go"})},
			wantStop:       StopDone,
			wantOutput:     `{"title":"Go"}`,
			wantModelCalls: 1,
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				if len(srv.LastChat().Format) == 0 {
					t.Errorf("the call carried no format")
				}
			},
		},
		{
			name: "format with tools: the loop runs without it, one last call without tools uses it",
			cfg:  Config{Format: schema},
			turns: []ollamatest.Turn{
				ollamatest.Calls(search("go")), ollamatest.Text("The title is Go."), ollamatest.JSON(map[string]any{"title": "Go"}),
			},
			wantStop:       StopDone,
			wantOutput:     `{"title":"Go"}`,
			wantModelCalls: 3,
			wantToolRuns:   1,
			wantKinds:      []string{"model", "tool", "model", "format", "model", "stop"},
			check: func(t *testing.T, res *Result, srv *ollamatest.Server, _ *recorder) {
				reqs := srv.ChatRequests()
				for i, r := range reqs[:2] {
					if len(r.Format) != 0 || len(r.Tools) == 0 {
						t.Errorf("loop call %d: format %s, %d tools", i+1, r.Format, len(r.Tools))
					}
				}
				if last := reqs[2]; len(last.Format) == 0 || len(last.Tools) != 0 || last.LastUser() != formatText {
					t.Errorf("format call: format %s, %d tools, user %q", last.Format, len(last.Tools), last.LastUser())
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Enqueue(tc.turns...)
			fake := &fakeTools{answer: tc.answer}
			var tools Tools = fake
			if tc.noTools {
				tools = nil
			}
			rec := &recorder{}
			cfg := tc.cfg
			cfg.Stage = "02-research"
			msgs := userTask("Research Go modules.")
			res, err := Run(context.Background(), newClient(t, srv), tools, msgs, cfg, rec.observe)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.StopReason != tc.wantStop || res.Output != tc.wantOutput {
				t.Errorf("stop %q, output %q; want %q, %q", res.StopReason, res.Output, tc.wantStop, tc.wantOutput)
			}
			if res.Incomplete != (tc.wantStop == StopIncomplete) {
				t.Errorf("Incomplete = %v with stop reason %q", res.Incomplete, res.StopReason)
			}
			if got := len(srv.ChatRequests()); res.ModelCalls != tc.wantModelCalls || got != tc.wantModelCalls {
				t.Fatalf("model calls: result %d, server %d, want %d", res.ModelCalls, got, tc.wantModelCalls)
			}
			if res.ToolCalls != tc.wantToolRuns || fake.count() != tc.wantToolRuns || len(rec.of(EventTool)) != tc.wantToolRuns {
				t.Errorf("tool calls: result %d, run %d, events %d, want %d", res.ToolCalls, fake.count(), len(rec.of(EventTool)), tc.wantToolRuns)
			}
			if tc.wantKinds != nil && !reflect.DeepEqual(rec.kinds(), tc.wantKinds) {
				t.Errorf("events %v, want %v", rec.kinds(), tc.wantKinds)
			}
			if len(msgs) != 2 {
				t.Errorf("Run changed the caller's messages")
			}
			if srv.Pending() != 0 {
				t.Errorf("%d scripted turns were not used", srv.Pending())
			}
			for _, e := range rec.events {
				if e.Stage != "02-research" {
					t.Fatalf("event %s has stage %q", e.Kind, e.Stage)
				}
			}
			if tc.check != nil {
				tc.check(t, res, srv, rec)
			}
		})
	}
}

func TestRunEvents(t *testing.T) {
	srv := newServer(t)
	final := "Go modules record dependency versions in go.mod."
	srv.Enqueue(ollamatest.Calls(search("go modules")), ollamatest.Think("check the result", final))
	rec := &recorder{}
	res, err := Run(context.Background(), newClient(t, srv), &fakeTools{}, userTask("Explain Go modules."), Config{Stage: "02-research"}, rec.observe)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"model", "tool", "model", "stop"}; !reflect.DeepEqual(rec.kinds(), want) {
		t.Fatalf("events %v, want %v", rec.kinds(), want)
	}
	// The answer streamed as deltas before its model event.
	var streamed, thought strings.Builder
	lastModel := -1
	for i, e := range rec.events {
		switch e.Kind {
		case EventDelta:
			streamed.WriteString(e.Delta)
			thought.WriteString(e.Thinking)
			if lastModel != 0 {
				t.Errorf("delta at %d is not between the first and the second model event", i)
			}
		case EventModel:
			lastModel++
		}
	}
	if streamed.String() != final || thought.String() != "check the result" {
		t.Errorf("streamed %q / %q", streamed.String(), thought.String())
	}
	reqs := srv.ChatRequests()
	sumIn, sumOut := 0, 0
	for i, e := range rec.of(EventModel) {
		m := e.Model
		if m.Call != i+1 || m.Model != "tiny" || m.Server != srv.URL() || m.DoneReason != "stop" || m.Err != "" {
			t.Errorf("model event %d: %+v", i, m)
		}
		if want := srv.PromptTokens(reqs[i]); m.PromptTokens != want || m.PromptEstimate <= 0 || m.NumCtx <= 0 {
			t.Errorf("model event %d: prompt %d (server counted %d), estimate %d, num_ctx %d", i, m.PromptTokens, want, m.PromptEstimate, m.NumCtx)
		}
		// Both counts stay with the call, for calibration.
		if m.PromptGuess <= 0 || m.PromptMethod != "estimated" || m.PromptGuess != m.PromptEstimate {
			t.Errorf("model event %d: guess %d by %q, estimate %d", i, m.PromptGuess, m.PromptMethod, m.PromptEstimate)
		}
		if m.OutputTokens <= 0 || m.Attempts != 1 {
			t.Errorf("model event %d: output tokens %d, attempts %d", i, m.OutputTokens, m.Attempts)
		}
		if !reqs[i].Streaming() {
			t.Errorf("call %d did not stream although events are observed", i+1)
		}
		sumIn += m.PromptTokens
		sumOut += m.OutputTokens
	}
	if a, b := rec.nth(t, EventModel, 0), rec.nth(t, EventModel, 1); a.Model.ToolCalls != 1 || b.Model.ToolCalls != 0 {
		t.Errorf("tool calls per model event: %d, %d", a.Model.ToolCalls, b.Model.ToolCalls)
	}
	if res.PromptTokens != sumIn || res.OutputTokens != sumOut {
		t.Errorf("result tokens %d/%d, events sum to %d/%d", res.PromptTokens, res.OutputTokens, sumIn, sumOut)
	}
	tool := rec.nth(t, EventTool, 0).Tool
	if tool.Call != 1 || tool.Name != "search_search" || tool.Args["query"] != "go modules" || tool.ResultSize == 0 || tool.Duration <= 0 {
		t.Errorf("tool event: %+v", tool)
	}
	if stop := rec.of(EventStop); len(stop) != 1 || stop[0].StopReason != StopDone {
		t.Errorf("stop events: %+v", stop)
	}
}

func TestRunWithoutObserverDoesNotStream(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(ollamatest.Calls(search("x")), ollamatest.Text("ok"))
	if _, err := Run(context.Background(), newClient(t, srv), &fakeTools{}, userTask("x"), Config{}, nil); err != nil {
		t.Fatal(err)
	}
	for i, r := range srv.ChatRequests() {
		if r.Streaming() {
			t.Errorf("call %d streamed with no observer", i+1)
		}
	}
}

func TestRunSendsModelSettings(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(ollamatest.Text("ok"))
	temp, think := 0.2, false
	cfg := Config{Model: "tiny", Temperature: &temp, Think: &think, NumCtx: 8192, MaxOutput: 1000}
	if _, err := Run(context.Background(), newClient(t, srv), nil, userTask("x"), cfg, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.LastChat()
	if r.NumCtx() != 8192 || r.Options["temperature"] != 0.2 {
		t.Errorf("options %v", r.Options)
	}
	if n, _ := r.IntOption("num_predict"); n != 1000 {
		t.Errorf("num_predict %d", n)
	}
	if on, set := r.ThinkRequested(); !set || on {
		t.Errorf("think on=%v set=%v, want set to false", on, set)
	}
}

func TestRunModelErrors(t *testing.T) {
	tests := []struct {
		name     string
		model    string
		turn     ollamatest.Turn
		wantKind llm.Kind
		want     string
	}{
		{"model missing", "absent", ollamatest.Text("unused"), llm.KindModelMissing, "absent"},
		{"bad request", "tiny", ollamatest.Fail(400, "invalid options"), llm.KindBadRequest, "invalid options"},
		{"server unavailable", "tiny", ollamatest.Fail(503, ""), llm.KindUnavailable, ""},
		{"error mid-stream", "tiny", ollamatest.StreamFailure("partial", "model crashed"), llm.KindStream, "model crashed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny"}}, AllowUnscripted: true})
			srv.Enqueue(ollamatest.Calls(search("go")), tc.turn)
			rec := &recorder{}
			model := tc.model
			_, err := Run(context.Background(), newClient(t, srv), &fakeTools{}, userTask("x"), Config{Stage: "03-draft [2/5]", Model: model}, rec.observe)
			if err == nil {
				t.Fatal("Run succeeded")
			}
			if llm.KindOf(err) != tc.wantKind || !strings.Contains(err.Error(), "03-draft [2/5]") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v (kind %v), want kind %v naming the stage and %q", err, llm.KindOf(err), tc.wantKind, tc.want)
			}
			models := rec.of(EventModel)
			if len(models) == 0 || models[len(models)-1].Model.Err == "" {
				t.Errorf("the failed call has no model event with its error")
			}
			if len(rec.of(EventStop)) != 0 {
				t.Errorf("a failed Run emitted a stop event")
			}
		})
	}
}

func TestRunCancelled(t *testing.T) {
	tests := []struct {
		name  string
		setup func(srv *ollamatest.Server, cancel context.CancelFunc) Tools
	}{
		{"during a model call", func(srv *ollamatest.Server, cancel context.CancelFunc) Tools {
			srv.Enqueue(ollamatest.Hang())
			go func() {
				_ = srv.AwaitChats(context.Background(), 1)
				cancel()
			}()
			return &fakeTools{}
		}},
		{"during a tool call", func(srv *ollamatest.Server, cancel context.CancelFunc) Tools {
			srv.Enqueue(ollamatest.Calls(search("go")))
			return &fakeTools{answer: func(string, map[string]any) (ToolResult, error) {
				cancel()
				return ToolResult{}, context.Canceled
			}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tools := tc.setup(srv, cancel)
			_, err := Run(ctx, newClient(t, srv), tools, userTask("x"), Config{Stage: "02-research"}, nil)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "02-research") {
				t.Errorf("error %v, want context.Canceled naming the stage", err)
			}
		})
	}
}

func TestRunRefusesNothingToDo(t *testing.T) {
	srv := newServer(t)
	if _, err := Run(context.Background(), nil, nil, userTask("x"), Config{Stage: "s"}, nil); err == nil {
		t.Errorf("no client: no error")
	}
	if _, err := Run(context.Background(), newClient(t, srv), nil, nil, Config{Stage: "s"}, nil); err == nil {
		t.Errorf("no messages: no error")
	}
}

func TestRunToolCallWithoutTools(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(ollamatest.Calls(search("go")), ollamatest.Text("answer"))
	rec := &recorder{}
	res, err := Run(context.Background(), newClient(t, srv), nil, userTask("x"), Config{Stage: "s"}, rec.observe)
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "answer" || res.ToolCalls != 1 {
		t.Errorf("output %q, %d tool calls", res.Output, res.ToolCalls)
	}
	if got := srv.LastChat().ToolResults(); len(got) != 1 || !strings.Contains(got[0].Content, "offers no tools") {
		t.Errorf("the model saw %+v", got)
	}
	if ev := rec.nth(t, EventTool, 0).Tool; !ev.IsError || !strings.Contains(ev.Err, "offers no tools") {
		t.Errorf("tool event not an error with its text: %+v", ev)
	}
}
