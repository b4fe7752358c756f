package telemetry_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/telemetry"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// receiver is an OTLP/HTTP trace receiver on loopback: it decodes each
// export request and keeps the spans with their resources.
type receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	spans    []*tracepb.Span
	resource map[string]string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{resource: map[string]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
			http.NotFound(w, req)
			return
		}
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		data, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var export coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(data, &export); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range export.ResourceSpans {
			for _, kv := range rs.GetResource().GetAttributes() {
				r.resource[kv.Key] = kv.GetValue().GetStringValue()
			}
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// lookupTools is one tool, lookup_find, served in-process.
type lookupTools struct{}

func (lookupTools) Tools() []llm.Tool {
	return []llm.Tool{{Name: "lookup_find", Description: "Find a fact.", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)}}
}

func (lookupTools) Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	return agent.ToolResult{Text: "The sky is blue.", Server: "lookup", Tool: "find"}, nil // the loop measures the duration
}

func (lookupTools) Close() error { return nil }

func attrs(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// TestRunExportsASpanTree runs a two-stage workspace (a tool-using stage,
// then a For each stage of two items) with the exporter attached, receives
// the OTLP export in-process, and checks the tree and its GenAI attributes.
func TestRunExportsASpanTree(t *testing.T) {
	const model = "tiny"
	rcv := newReceiver(t)
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768, Capabilities: []string{"completion", "tools"}}}})
	srv.On(ollamatest.And(ollamatest.UserContains("FIND"), ollamatest.Not(ollamatest.HasToolResult("")))).Reply(ollamatest.Calls(ollamatest.Call("lookup_find", map[string]any{"q": "sky"})))
	srv.On(ollamatest.UserContains("FIND")).Reply(ollamatest.Text("- The sky is blue."))
	srv.On(ollamatest.LastUserContains("## Part A")).Reply(ollamatest.Text("## Part A\n\nAbout A."))
	srv.On(ollamatest.LastUserContains("## Part B")).Reply(ollamatest.Text("## Part B\n\nAbout B."))
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "tiny"
[workflow]
parallel = 2
-- plan.md --
# Plan

## Part A
- a

## Part B
- b
-- pipeline/01-find/CONTEXT.md --
# Stage: 01-find
## Tools
lookup: find
## Process
FIND one fact.
## Outputs
- facts.md -> output/
-- pipeline/02-write/CONTEXT.md --
# Stage: 02-write
## For each
part in ../../plan.md
## Process
WRITE the part shown below.
## Outputs
- parts.md -> output/
`)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.srv.URL, "OTEL_SERVICE_NAME": "icm-test"}
	ctx := context.Background()
	x, err := telemetry.FromEnv(ctx, func(k string) string { return env[k] }, telemetry.Options{ServiceVersion: "test"})
	if err != nil || x == nil {
		t.Fatalf("exporter: %v %v", x, err)
	}
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	var printed atomic.Int32
	eng, err := workflow.New(ws, workflow.Options{
		Client: client, All: true,
		Check:    check.Options{Servers: map[string]bool{"lookup": true}},
		Tools:    func(context.Context, workflow.ToolRequest) (workflow.Toolset, error) { return lookupTools{}, nil },
		Progress: telemetry.Tee(x.Observe(telemetry.RunInfo{Workspace: dir, Provider: "ollama"}), func(report.Event) { printed.Add(1) }),
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := eng.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := x.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	if printed.Load() == 0 {
		t.Error("Tee did not pass events to the second function")
	}

	rcv.mu.Lock()
	spans := rcv.spans
	resource := rcv.resource
	rcv.mu.Unlock()
	if resource["service.name"] != "icm-test" || resource["service.version"] != "test" {
		t.Errorf("resource %v", resource)
	}
	byID := map[string]*tracepb.Span{}
	children := map[string][]*tracepb.Span{}
	var roots []*tracepb.Span
	for _, s := range spans {
		byID[string(s.SpanId)] = s
	}
	for _, s := range spans {
		if len(s.ParentSpanId) == 0 {
			roots = append(roots, s)
			continue
		}
		p, ok := byID[string(s.ParentSpanId)]
		if !ok {
			t.Errorf("span %q has a parent that was not exported", s.Name)
			continue
		}
		if s.StartTimeUnixNano < p.StartTimeUnixNano || s.EndTimeUnixNano > p.EndTimeUnixNano {
			t.Errorf("span %q [%d, %d] is not within its parent %q [%d, %d]", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano, p.Name, p.StartTimeUnixNano, p.EndTimeUnixNano)
		}
		children[string(s.ParentSpanId)] = append(children[string(s.ParentSpanId)], s)
	}
	if len(roots) != 1 || roots[0].Name != "icm run" || attrs(roots[0].Attributes)["icm.run.id"].GetStringValue() != sum.RunID {
		t.Fatalf("roots: %v", names(roots))
	}
	// The tree as names: run > stages > (items >) calls.
	var tree func(s *tracepb.Span, depth int) string
	tree = func(s *tracepb.Span, depth int) string {
		out := strings.Repeat("  ", depth) + s.Name + "\n"
		kids := children[string(s.SpanId)]
		sortSpans(kids)
		for _, k := range kids {
			out += tree(k, depth+1)
		}
		return out
	}
	want := `icm run
  invoke_agent 01-find
    chat tiny
    execute_tool lookup_find
    chat tiny
  invoke_agent 02-write
    item 1/2 Part A
      chat tiny
    item 2/2 Part B
      chat tiny
`
	if got := tree(roots[0], 0); got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}

	// GenAI attributes: every chat span names its model and its usage,
	// which adds up to what the server counted.
	served := 0
	for _, rec := range srv.Requests() {
		if rec.Reply != nil {
			served += rec.Reply.PromptEvalCount
		}
	}
	inputs := 0
	for _, s := range spans {
		a := attrs(s.Attributes)
		switch {
		case strings.HasPrefix(s.Name, "chat "):
			if a["gen_ai.operation.name"].GetStringValue() != "chat" || a["gen_ai.request.model"].GetStringValue() != model ||
				a["gen_ai.provider.name"].GetStringValue() != "ollama" || a["gen_ai.usage.output_tokens"].GetIntValue() <= 0 ||
				s.Kind != tracepb.Span_SPAN_KIND_CLIENT || a["server.address"].GetStringValue() != "127.0.0.1" {
				t.Errorf("chat span attributes: %v", a)
			}
			inputs += int(a["gen_ai.usage.input_tokens"].GetIntValue())
		case strings.HasPrefix(s.Name, "execute_tool "):
			if a["gen_ai.operation.name"].GetStringValue() != "execute_tool" || a["gen_ai.tool.name"].GetStringValue() != "lookup_find" ||
				a["icm.tool.server"].GetStringValue() != "lookup" {
				t.Errorf("tool span attributes: %v", a)
			}
		case strings.HasPrefix(s.Name, "invoke_agent "):
			if a["gen_ai.agent.name"].GetStringValue() != strings.TrimPrefix(s.Name, "invoke_agent ") || a["icm.status"].GetStringValue() != "done" {
				t.Errorf("stage span attributes: %v", a)
			}
		}
	}
	if inputs != served || served == 0 {
		t.Errorf("chat spans count %d input tokens, the server %d", inputs, served)
	}
}

func names(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// sortSpans orders siblings by start time, except For each items, which
// run at once and are ordered by name.
func sortSpans(s []*tracepb.Span) {
	less := func(a, b *tracepb.Span) bool {
		if strings.HasPrefix(a.Name, "item ") && strings.HasPrefix(b.Name, "item ") {
			return a.Name < b.Name
		}
		return a.StartTimeUnixNano < b.StartTimeUnixNano
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
