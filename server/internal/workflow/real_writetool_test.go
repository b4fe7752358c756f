package workflow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// chatRecorder keeps the body and status of every chat request.
type chatRecorder struct {
	mu     sync.Mutex
	bodies [][]byte
	codes  []int
}

func (c *chatRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path != "/api/chat" {
		return http.DefaultTransport.RoundTrip(r)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := http.DefaultTransport.RoundTrip(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bodies = append(c.bodies, body)
	if err == nil {
		c.codes = append(c.codes, resp.StatusCode)
	}
	return resp, err
}

// noTools is a client whose model lists no tools capability, so a stage
// that names its files is asked for them in one answer.
type noTools struct{ llm.Client }

func (n noTools) Show(ctx context.Context, model string) (*llm.ModelInfo, error) {
	info, err := n.Client.Show(ctx, model)
	if err != nil {
		return nil, err
	}
	c := *info
	c.Capabilities = []string{"completion"}
	return &c, nil
}

// realTrips is the trips stage with a folder output as well, at a
// temperature the tiny model answers at.
func realTrips(t *testing.T) string {
	dir := wstest.Write(t, strings.Replace(trips, "name = \"qwen3.5:9b\"", "name = \"qwen3.5:9b\"\ntemperature = 1.0\nmax_output = 2048", 1))
	return dir
}

// TestRealOllamaWriteTool: the real server accepts the write tool's
// definition in a request (HTTP 200; its random model may or may not call
// it), and the plain fallback, asked for with format (the JSON schema of
// paths and contents), yields JSON that icm parses and whose files it
// accepts or refuses by the declared outputs: nothing is written that
// fits none, and what is written fits one.
func TestRealOllamaWriteTool(t *testing.T) {
	srv := realollama.Start(t, realollama.Options{})
	run := func(t *testing.T, wrap func(llm.Client) llm.Client) (*chatRecorder, string, error) {
		dir := realTrips(t)
		rec := &chatRecorder{}
		client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(realollama.Proxy(t, srv.URL, rec)))
		if err != nil {
			t.Fatal(err)
		}
		var c llm.Client = client
		if wrap != nil {
			c = wrap(client)
		}
		eng, err := workflow.New(openWS(t, dir), workflow.Options{Client: c, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		_, err = eng.Run(context.Background())
		return rec, dir, err
	}
	first := func(t *testing.T, rec *chatRecorder) map[string]any {
		t.Helper()
		if len(rec.bodies) == 0 || len(rec.codes) == 0 {
			t.Fatal("no chat request reached the server")
		}
		if rec.codes[0] != http.StatusOK {
			t.Fatalf("the server answered %d to the first request", rec.codes[0])
		}
		var body map[string]any
		if err := json.Unmarshal(rec.bodies[0], &body); err != nil {
			t.Fatal(err)
		}
		return body
	}

	t.Run("the write tool's definition is accepted", func(t *testing.T) {
		rec, _, err := run(t, nil)
		body := first(t, rec)
		tools, _ := json.Marshal(body["tools"])
		if !strings.Contains(string(tools), `"name":"write_output"`) {
			t.Errorf("the request offered %s", tools)
		}
		if llm.KindOf(err) == llm.KindBadRequest {
			t.Errorf("the server refused the request: %v", err)
		}
		t.Logf("outcome with the random model: %v", err)
	})

	t.Run("the plain fallback with format yields files icm accepts or refuses", func(t *testing.T) {
		rec, dir, err := run(t, func(c llm.Client) llm.Client { return noTools{c} })
		body := first(t, rec)
		if _, has := body["tools"]; has {
			t.Errorf("the fallback offered tools: %v", body["tools"])
		}
		if f, _ := json.Marshal(body["format"]); !strings.Contains(string(f), `"files"`) {
			t.Errorf("the fallback's format = %s", f)
		}
		if err != nil && strings.Contains(err.Error(), "not the JSON of files") {
			t.Fatalf("the schema-constrained answer did not parse: %v", err)
		}
		src, _ := os.ReadFile(filepath.Join(dir, "stages/01-trip/CONTEXT.md"))
		targets := writeout.Targets(contract.Parse(filepath.Join(dir, "stages/01-trip/CONTEXT.md"), src))
		out := filepath.Join(dir, "stages/01-trip/output")
		written := 0
		_ = filepath.WalkDir(out, func(p string, d os.DirEntry, werr error) error {
			if werr != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(filepath.Join(dir, "stages/01-trip"), p)
			fits := false
			for _, tg := range targets {
				fits = fits || tg.Fits(filepath.ToSlash(rel))
			}
			if !fits {
				t.Errorf("%s was written, and fits no declared output", rel)
			}
			t.Logf("written: %s", rel)
			written++
			return nil
		})
		switch {
		case err == nil && written == 0:
			t.Error("the run succeeded and wrote nothing")
		case err != nil && written > 0:
			t.Errorf("a failed run left %d files: %v", written, err)
		case err != nil && !strings.Contains(err.Error(), "wrote no file for") && !strings.Contains(err.Error(), "was refused"):
			t.Errorf("the run failed, not on the declared outputs: %v", err)
		}
		t.Logf("outcome with the random model: %d files, %v", written, err)
	})

	t.Run("a folder output: every file the schema lets the model name is accepted", func(t *testing.T) {
		rec, dir, err := runWith(t, srv, folderStage, func(c llm.Client) llm.Client { return noTools{c} })
		first(t, rec)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		entries, _ := os.ReadDir(filepath.Join(dir, "stages/01-days/output/days"))
		if len(entries) == 0 {
			t.Fatal("no file in output/days/")
		}
		for _, e := range entries {
			t.Logf("accepted: output/days/%s", e.Name())
		}
	})
}

// folderStage writes one folder of files.
const folderStage = `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "m"
temperature = 1.0
max_output = 2048
-- stages/01-days/CONTEXT.md --
# Stage: 01-days

## Process
One page per day.

## Outputs
| Artifact | Location | Format |
|---|---|---|
| Days | output/days/ | Markdown |
`

func runWith(t *testing.T, srv *realollama.Server, archive string, wrap func(llm.Client) llm.Client) (*chatRecorder, string, error) {
	dir := wstest.Write(t, archive)
	rec := &chatRecorder{}
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(realollama.Proxy(t, srv.URL, rec)))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := workflow.New(openWS(t, dir), workflow.Options{Client: wrap(client), Model: srv.Model})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Run(context.Background())
	return rec, dir, err
}
