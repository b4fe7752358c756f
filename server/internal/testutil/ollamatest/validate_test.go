package ollamatest_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func TestChatRefusals(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantError  string // the whole message, or a prefix ending in "*"
	}{
		{"unknown model", `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`, 404, "model 'nope' not found"},
		{"invalid JSON", `{"model":`, 400, "unexpected end of JSON input"},
		{"wrong type", `{"model":"tiny","messages":"hi"}`, 400, "json: cannot unmarshal*"},
		{"empty body", ``, 400, "missing request body"},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "model is required"},
		{"think on a model that cannot", `{"model":"plain","think":true,"messages":[{"role":"user","content":"hi"}]}`, 400, `"plain" does not support thinking`},
		{"tools to a model that cannot", `{"model":"plain","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}],"messages":[{"role":"user","content":"hi"}]}`,
			400, "registry.ollama.ai/library/plain:latest does not support tools"},
		{"think level on a model without levels", `{"model":"tiny","think":"high","messages":[{"role":"user","content":"hi"}]}`, 400, `think value "high" is not supported for this model`},
		{"format neither json nor a schema", `{"model":"tiny","format":"yaml","messages":[{"role":"user","content":"hi"}]}`, 500, `invalid format: "\"yaml\""; expected "json" or a valid JSON Schema object`},
		{"top_logprobs out of range", `{"model":"tiny","top_logprobs":21,"messages":[]}`, 400, "top_logprobs must be between 0 and 20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{
				{Name: "tiny"}, {Name: "plain", Capabilities: []string{"completion"}},
			}})
			srv.Default(ollamatest.Text("never"))
			resp, err := http.Post(srv.URL()+"/api/chat", "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got struct{ Error string }
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if prefix, ok := strings.CutSuffix(tt.wantError, "*"); ok && !strings.HasPrefix(got.Error, prefix) || !ok && got.Error != tt.wantError {
				t.Errorf("error = %q, want %q", got.Error, tt.wantError)
			}
			if srv.Stats().Active != 0 || srv.RequestsTo("/api/chat")[0].Reply != nil {
				t.Error("a refused call reached the script")
			}
		})
	}
}

func TestModelMissingThroughClient(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	req := userCall("hi")
	req.Model = "qwen3:4b"
	_, err := chat(testCtx(t), srv, req)
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || se.ErrorMessage != "model 'qwen3:4b' not found" {
		t.Errorf("err = %#v", err)
	}
}

func TestEmptyMessagesLoadTheModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	res, err := chat(testCtx(t), srv, &api.ChatRequest{Model: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	if res.final.DoneReason != "load" || srv.Stats().Unscripted != 0 {
		t.Errorf("done_reason = %q", res.final.DoneReason)
	}
}

func TestModelNamesLikeOllama(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "Tiny"}, {Name: "org/model:q4"}}})
	srv.Default(ollamatest.Text("ok"))
	for _, name := range []string{"tiny", "tiny:latest", "TINY", "org/model:q4"} {
		req := userCall("hi")
		req.Model = name
		res, err := chat(testCtx(t), srv, req)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res.final.Model != name {
			t.Errorf("%s: response names %q, want the name as sent", name, res.final.Model)
		}
	}
	for _, name := range []string{"tiny:q8", "model:q4", "org/model"} {
		req := userCall("hi")
		req.Model = name
		if _, err := chat(testCtx(t), srv, req); err == nil {
			t.Errorf("%s: found, want 404", name)
		}
	}
}

func TestUnscriptedCall(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true})
	_, err := chat(testCtx(t), srv, userCall("nobody scripted this"))
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || !strings.Contains(se.ErrorMessage, "no rule") {
		t.Errorf("err = %#v", err)
	}
	if u := srv.Unscripted(); len(u) != 1 || u[0].LastUser() != "nobody scripted this" {
		t.Errorf("unscripted = %v", u)
	}
}

// recordingTB stands in for a test to see what New reports at cleanup.
type recordingTB struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Errorf(f string, a ...any) { r.errors = append(r.errors, f) }

func TestUnscriptedFailsTheTest(t *testing.T) {
	for _, allow := range []bool{false, true} {
		tb := &recordingTB{TB: t}
		srv := ollamatest.New(tb, ollamatest.Config{AllowUnscripted: allow})
		_, _ = chat(testCtx(t), srv, userCall("hi"))
		for _, f := range tb.cleanups {
			f()
		}
		if failed := len(tb.errors) > 0; failed == allow {
			t.Errorf("AllowUnscripted %v: errors reported = %v", allow, tb.errors)
		}
	}
}

func TestOtherEndpoints(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: "tiny", ContextLength: 8192, Family: "llama", Capabilities: []string{"completion", "tools"}},
	}, Version: "0.99.0"})
	ctx := testCtx(t)
	client := srv.Client()

	v, err := client.Version(ctx)
	if err != nil || v != "0.99.0" {
		t.Errorf("version = %q, %v", v, err)
	}
	if err := client.Heartbeat(ctx); err != nil {
		t.Errorf("heartbeat: %v", err)
	}

	list, err := client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 1 || list.Models[0].Name != "tiny:latest" || list.Models[0].Details.Family != "llama" || len(list.Models[0].Digest) != 64 {
		t.Errorf("tags = %+v", list.Models)
	}

	show, err := client.Show(ctx, &api.ShowRequest{Model: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	if show.ModelInfo["llama.context_length"] != float64(8192) || show.ModelInfo["general.architecture"] != "llama" {
		t.Errorf("model_info = %v", show.ModelInfo)
	}
	if show.Details.Family != "llama" || len(show.Capabilities) != 2 || show.Capabilities[1] != "tools" {
		t.Errorf("show = %+v", show)
	}
	_, err = client.Show(ctx, &api.ShowRequest{Model: "nope"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || se.ErrorMessage != "model 'nope' not found" {
		t.Errorf("show missing: %#v", err)
	}

	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/", 200, "Ollama is running"},
		{"HEAD", "/", 200, ""},
		{"HEAD", "/api/tags", 200, ""},
		{"POST", "/api/tags", 405, ""},
		{"GET", "/api/chat", 405, ""},
		{"GET", "/api/nothing", 404, ""},
	} {
		req, _ := http.NewRequestWithContext(ctx, c.method, srv.URL()+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || (c.body != "" && string(b) != c.body) {
			t.Errorf("%s %s: %d %q", c.method, c.path, resp.StatusCode, b)
		}
	}
}

func TestPull(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Pullable: []ollamatest.Model{
		{Name: "qwen3:4b", ContextLength: 40960},
		{Name: "broken", PullError: "max retries exceeded: connection reset"},
	}})
	srv.Default(ollamatest.Text("ok"))
	ctx := testCtx(t)
	client := srv.Client()

	tests := []struct {
		model     string
		stream    bool
		wantError string
		wantLast  string
	}{
		{"unknown", true, "pull model manifest: file does not exist", "pulling manifest"},
		{"broken", true, "max retries exceeded: connection reset", "pulling manifest"},
		{"broken", false, "max retries exceeded: connection reset", ""},
		{"qwen3:4b", true, "", "success"},
		{"qwen3:4b", false, "", "success"},
	}
	for _, tt := range tests {
		var statuses []api.ProgressResponse
		err := client.Pull(ctx, &api.PullRequest{Model: tt.model, Stream: &tt.stream}, func(p api.ProgressResponse) error {
			statuses = append(statuses, p)
			return nil
		})
		if tt.wantError == "" && err != nil || tt.wantError != "" && (err == nil || !strings.Contains(err.Error(), tt.wantError)) {
			t.Errorf("pull %s (stream %v): err = %v, want %q", tt.model, tt.stream, err, tt.wantError)
		}
		if tt.wantLast != "" && (len(statuses) == 0 || statuses[len(statuses)-1].Status != tt.wantLast) {
			t.Errorf("pull %s (stream %v): statuses %+v, want last %q", tt.model, tt.stream, statuses, tt.wantLast)
		}
		if tt.stream && tt.wantError == "" {
			var sawBytes bool
			for _, s := range statuses {
				sawBytes = sawBytes || (s.Total > 0 && s.Completed == s.Total && strings.HasPrefix(s.Digest, "sha256:"))
			}
			if !sawBytes {
				t.Errorf("pull %s: no completed layer in %+v", tt.model, statuses)
			}
		}
	}

	// A pulled model is installed: listed, described and answered.
	req := userCall("hi")
	req.Model = "qwen3:4b"
	if _, err := chat(ctx, srv, req); err != nil {
		t.Errorf("chat after pull: %v", err)
	}
	if _, ok := srv.Model("broken"); ok {
		t.Error("a failed pull installed the model")
	}
	list, _ := client.List(ctx)
	if len(list.Models) != 2 {
		t.Errorf("tags after pull = %+v", list.Models)
	}
	if len(srv.RequestsTo("/api/pull")) != len(tests) {
		t.Errorf("pull requests recorded = %d", len(srv.RequestsTo("/api/pull")))
	}
	var pr api.PullRequest
	if err := srv.RequestsTo("/api/pull")[0].Decode(&pr); err != nil || pr.Model != "unknown" {
		t.Errorf("decoded pull body = %+v, %v", pr, err)
	}
}
