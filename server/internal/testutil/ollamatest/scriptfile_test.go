package ollamatest_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func TestScriptFileServes(t *testing.T) {
	script, err := ollamatest.ReadScriptFile("testdata/scripts/course.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := script.Config()
	if cfg.Latency != 5*time.Millisecond || cfg.Slots != 2 || cfg.DefaultNumCtx != 2048 || len(cfg.Models) != 2 || len(cfg.Pullable) != 2 {
		t.Fatalf("config = %+v", cfg)
	}
	srv := ollamatest.New(t, cfg)
	script.Apply(srv.Engine)
	ctx := testCtx(t)

	var tools api.Tools
	if err := json.Unmarshal([]byte(`[{"type":"function","function":{"name":"search","parameters":{"type":"object","properties":{}}}}]`), &tools); err != nil {
		t.Fatal(err)
	}
	withTools := userCall("look it up")
	withTools.Tools = tools
	toolResult := userCall("look it up")
	toolResult.Tools = tools
	toolResult.Messages = append(toolResult.Messages, api.Message{Role: "tool", ToolName: "search", Content: "results"})
	format := userCall("describe")
	format.Format = json.RawMessage(`"json"`)
	flaky := userCall("x")
	flaky.Messages = append([]api.Message{{Role: "system", Content: "be flaky"}}, flaky.Messages...)
	plain := userCall("write objectives")
	plain.Model = "plain"

	tests := []struct {
		name                   string
		req                    *api.ChatRequest
		wantContent, wantThink string
		wantCall               string
		wantStatus             int
		wantDone               string
	}{
		{"queue first", userCall("anything"), "first call", "", "", 0, "stop"},
		{"rule with thinking", userCall("write objectives"), "1. Learn Go", "list them", "", 0, "stop"},
		{"thinking inlined for a plain model", plain, "<think>\nlist them\n</think>\n\n1. Learn Go", "", "", 0, "stop"},
		{"tool call", withTools, "", "", "search", 0, "stop"},
		{"tool result answered", toolResult, "Go is a language.", "", "", 0, "stop"},
		{"json", format, `{"title":"Go","ok":true}`, "", "", 0, "stop"},
		{"flaky once", flaky, "", "", "", 503, ""},
		{"flaky twice", flaky, "", "", "", 503, ""},
		{"flaky no more", flaky, "ok", "", "", 0, "stop"},
		{"regexp and length", userCall("cut it"), "half", "", "", 0, "length"},
		{"default", userCall("anything"), "ok", "", "", 0, "stop"},
	}
	for _, tt := range tests {
		res, err := chat(ctx, srv, tt.req)
		var se api.StatusError
		switch {
		case tt.wantStatus != 0:
			if !errors.As(err, &se) || se.StatusCode != tt.wantStatus {
				t.Errorf("%s: err = %v, want status %d", tt.name, err, tt.wantStatus)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if res.content != tt.wantContent || res.thinking != tt.wantThink || res.final.DoneReason != tt.wantDone {
			t.Errorf("%s: content %q thinking %q done %q", tt.name, res.content, res.thinking, res.final.DoneReason)
		}
		if tt.wantCall != "" && (len(res.calls) != 1 || res.calls[0].Function.Name != tt.wantCall) {
			t.Errorf("%s: calls %+v", tt.name, res.calls)
		}
	}

	// default_num_ctx applies to calls without num_ctx.
	if rec := srv.RequestsTo("/api/chat")[0]; rec.Reply.NumCtx != 2048 {
		t.Errorf("window = %d, want 2048", rec.Reply.NumCtx)
	}
	if err := srv.Client().Pull(ctx, &api.PullRequest{Model: "broken"}, func(api.ProgressResponse) error { return nil }); err == nil || err.Error() != "disk full" {
		t.Errorf("pull broken: %v", err)
	}
}

func TestScriptFileFaults(t *testing.T) {
	script, err := ollamatest.ReadScriptFile("testdata/scripts/faults.json")
	if err != nil {
		t.Fatal(err)
	}
	turn := func(i int) ollamatest.Turn { return script.Rules[i].Reply[0].Turn() }
	if !turn(0).Hang || !turn(1).Drop || !turn(2).StreamError || turn(2).Error != "boom" {
		t.Errorf("fault turns = %+v %+v %+v", turn(0), turn(1), turn(2))
	}
	if got := turn(3); got.Delay != time.Millisecond || got.PromptEvalCount != 3 || got.EvalCount != 2 {
		t.Errorf("counts and delay = %+v", got)
	}
	if ollamatest.Fail(503, "").Error == "" {
		t.Error("a status without an error text has no message")
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"syntax", "{\n  \"slots\": 2,\n  oops\n}", "x.json:3:3: invalid script: invalid character 'o'"},
		{"unknown field", "{\n  \"rules\": [{\"when\": {\"last_user_contain\": \"x\"}, \"reply\": [{}]}]\n}", `json: unknown field "last_user_contain"`},
		{"wrong type", "{\"slots\": \"four\"}", "x.json:1:17: invalid script"},
		{"bad duration", `{"latency": "fast"}`, `bad duration "fast"`},
		{"number duration", `{"latency": 200}`, `a duration is a string like "200ms"`},
		{"negative slots", `{"slots": -1}`, "must not be negative"},
		{"rule without reply", `{"rules": [{"when": {}}]}`, "rules[0] has no reply"},
		{"bad regexp", `{"rules": [{"when": {"last_user_matches": "("}, "reply": [{}]}]}`, "rules[0].when.last_user_matches"},
		{"content and json", `{"queue": [{"content": "a", "json": {}}]}`, "queue[0]: set content or json, not both"},
		{"bad status", `{"default": {"status": 200}}`, "default: status 200 is not an HTTP error status"},
		{"unnamed call", `{"rules": [{"reply": [{"tool_calls": [{}]}]}]}`, "rules[0].reply[0]: tool_calls[0] has no name"},
		{"unnamed model", `{"models": [{}]}`, "models[0] has no name"},
		{"two objects", `{} {}`, "text after the script object"},
		{"empty", ``, "x.json:1:1: invalid script: EOF"},
	}
	for _, tt := range tests {
		_, err := ollamatest.ParseScript("x.json", []byte(tt.script))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
	if _, err := ollamatest.ReadScriptFile("testdata/scripts/missing.json"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzParseScript checks that no input makes the parser (or a parsed
// script's Apply) panic; the seeds are the scripts in testdata.
func FuzzParseScript(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/scripts/*.json")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		script, err := ollamatest.ParseScript("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json:") {
				t.Errorf("error without the file name: %v", err)
			}
			return
		}
		e := ollamatest.NewEngine(script.Config())
		script.Apply(e)
		req := &ollamatest.Request{ChatRequest: api.ChatRequest{Model: "tiny", Messages: []api.Message{{Role: "user", Content: "objectives"}}}}
		_ = e.PromptTokens(req)
	})
}
