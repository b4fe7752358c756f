package agent

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/tools/mcpfixture"
)

// sessionTools adapts a tools.Toolset the way the workflow does.
type sessionTools struct{ s *tools.Toolset }

func (a sessionTools) Tools() []llm.Tool { return a.s.Tools() }

func (a sessionTools) Call(ctx context.Context, name string, args map[string]any) (ToolResult, error) {
	r, err := a.s.Call(ctx, name, args)
	return ToolResult{Text: r.Text, IsError: r.IsError, Server: r.Server, Tool: r.Tool, Size: r.Size, Truncated: r.Truncated, Duration: r.Duration}, err
}

// TestRunWithMCPSession runs the loop against the MCP fixture server over
// streamable HTTP, through a real tools.Toolset: its argument checks, unknown
// names and tool errors reach the model the same way the fake's do.
func TestRunWithMCPSession(t *testing.T) {
	mcpSrv := httptest.NewServer(server.NewStreamableHTTPServer(mcpfixture.New(mcpfixture.Options{Name: "fix"})))
	t.Cleanup(mcpSrv.Close)
	reg := tools.Registry{"fix": {Name: "fix", Transport: tools.TransportHTTP, URL: mcpSrv.URL + "/mcp", Source: "test"}}
	sess, err := tools.Open(context.Background(), reg, map[string][]string{"fix": {"add", "fail", "big"}}, tools.Options{Permit: act.Own("a test's own MCP server")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })

	srv := newServer(t)
	srv.Enqueue(
		ollamatest.Calls(
			ollamatest.Call("fix_add", map[string]any{"a": 40, "b": 2}),
			ollamatest.Call("fix_add", map[string]any{"a": "forty"}),
			ollamatest.Call("fix_echo", map[string]any{"text": "not allowed"}),
			ollamatest.Call("fix_fail", map[string]any{"message": "quota used up"}),
			ollamatest.Call("fix_big", map[string]any{"kb": 20}),
		),
		ollamatest.Text("The sum is 42."),
	)
	rec := &recorder{}
	res, err := Run(context.Background(), newClient(t, srv), sessionTools{sess}, userTask("Add 40 and 2."), Config{Stage: "01-sum"}, rec.observe)
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopDone || res.Output != "The sum is 42." || res.ToolCalls != 5 {
		t.Fatalf("stop %q, output %q, %d tool calls", res.StopReason, res.Output, res.ToolCalls)
	}
	offered := slices.Sorted(slices.Values(srv.ChatRequests()[0].ToolNames()))
	if strings.Join(offered, ",") != "fix_add,fix_big,fix_fail" {
		t.Errorf("offered %v, want the three allowed tools", offered)
	}
	results := srv.LastChat().ToolResults()
	if len(results) != 5 {
		t.Fatalf("%d tool results", len(results))
	}
	tests := []struct {
		name     string
		contains string
		isError  bool
	}{
		{"fix_add", "42", false},
		{"fix_add", `"a"`, true},
		{"fix_echo", "fix_echo", true},
		{"fix_fail", "quota used up", true},
		{"fix_big", "characters cut", false},
	}
	events := rec.of(EventTool)
	for i, tc := range tests {
		if results[i].ToolName != tc.name || !strings.Contains(results[i].Content, tc.contains) {
			t.Errorf("result %d: %s %q, want %s containing %q", i, results[i].ToolName, head(results[i].Content), tc.name, tc.contains)
		}
		if events[i].Tool.IsError != tc.isError {
			t.Errorf("event %d (%s): IsError %v, want %v", i, tc.name, events[i].Tool.IsError, tc.isError)
		}
	}
	if big := events[4].Tool; !big.Truncated || big.ResultSize != 20*1024 || big.Server != "fix" || big.Tool != "big" {
		t.Errorf("big result event: %+v", big)
	}
	if n := len([]rune(results[4].Content)); n > DefaultMaxToolResultChars {
		t.Errorf("big result fed back with %d characters", n)
	}
}
