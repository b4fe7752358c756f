package agent

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// benchToolTurns is how many tool-calling turns each benchmarked Run makes
// before its final answer.
const benchToolTurns = 4

// BenchmarkRun measures a Run of benchToolTurns tool turns and a final
// answer against the scripted server with no latency, so the figure is
// the loop's cost per model call plus the client and the local HTTP round
// trip. BenchmarkChat is that client and round trip alone, on the same
// conversation sizes: the difference is the loop's own overhead. Both
// report the median time per model call ("median-ns/call").
func BenchmarkRun(b *testing.B) {
	for _, stream := range []bool{false, true} {
		b.Run(fmt.Sprintf("stream=%v", stream), func(b *testing.B) {
			srv := newServer(b)
			srv.DefaultFunc(func(r *ollamatest.Request) ollamatest.Turn {
				if n := len(r.ToolResults()); n < benchToolTurns {
					return ollamatest.Calls(search(fmt.Sprintf("query %d", n)))
				}
				return ollamatest.Text("Sure! Here is the report:\n\n# Report\n\nGo modules record versions.\n\nLet me know if you want more.")
			})
			client := newClient(b, srv)
			tools := &fakeTools{}
			var observe func(Event)
			if stream {
				observe = func(Event) {}
			}
			msgs := userTask("Research Go modules and report.")
			ctx := context.Background()
			perCall := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, err := Run(ctx, client, tools, msgs, Config{Stage: "bench"}, observe)
				if err != nil {
					b.Fatal(err)
				}
				if res.ModelCalls != benchToolTurns+1 || res.StopReason != StopDone {
					b.Fatalf("%d model calls, stop %q", res.ModelCalls, res.StopReason)
				}
				perCall = append(perCall, time.Since(start)/time.Duration(res.ModelCalls))
			}
			b.ReportMetric(float64(median(perCall)), "median-ns/call")
		})
	}
}

// BenchmarkChat is the baseline of BenchmarkRun: the same five calls made
// with the client directly, growing the conversation the same way.
func BenchmarkChat(b *testing.B) {
	srv := newServer(b)
	srv.DefaultFunc(func(r *ollamatest.Request) ollamatest.Turn {
		if n := len(r.ToolResults()); n < benchToolTurns {
			return ollamatest.Calls(search(fmt.Sprintf("query %d", n)))
		}
		return ollamatest.Text("# Report\n\nGo modules record versions.")
	})
	client := newClient(b, srv)
	tools := &fakeTools{}
	offered := tools.Tools()
	ctx := context.Background()
	perCall := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		msgs := userTask("Research Go modules and report.")
		start := time.Now()
		for call := 0; call <= benchToolTurns; call++ {
			resp, err := client.Chat(ctx, llm.ChatRequest{Stage: "bench", Messages: msgs, Tools: offered})
			if err != nil {
				b.Fatal(err)
			}
			msgs = append(msgs, resp.Message)
			for _, tc := range resp.Message.ToolCalls {
				msgs = append(msgs, llm.Message{Role: llm.RoleTool, Content: "result of " + tc.Name, ToolName: tc.Name, ToolCallID: tc.ID})
			}
		}
		perCall = append(perCall, time.Since(start)/(benchToolTurns+1))
	}
	b.ReportMetric(float64(median(perCall)), "median-ns/call")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// replayClient answers from memory, so BenchmarkLoopOnly measures the loop
// alone: building requests, running tools, cutting results, keys for the
// stuck guard, events and Clean.
type replayClient struct{}

func (c replayClient) Chat(_ context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	n := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			n++
		}
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	if n < benchToolTurns {
		msg.ToolCalls = []llm.ToolCall{{ID: fmt.Sprintf("call_%d", n), Name: "search_search", Arguments: map[string]any{"query": fmt.Sprintf("query %d", n), "max_results": 5.0}}}
	} else {
		msg.Content = "Sure! Here is the report:\n\n# Report\n\nGo modules record versions.\n\nLet me know if you want more."
	}
	if req.OnDelta != nil && msg.Content != "" {
		req.OnDelta(llm.Delta{Content: msg.Content})
	}
	return &llm.ChatResponse{Model: "tiny", Message: msg, DoneReason: "stop", PromptTokens: 100, OutputTokens: 20}, nil
}

func (replayClient) Show(context.Context, string) (*llm.ModelInfo, error) {
	return &llm.ModelInfo{Name: "tiny", ContextLength: 32768}, nil
}

func (replayClient) Pull(context.Context, string, func(llm.PullProgress)) error { return nil }

func BenchmarkLoopOnly(b *testing.B) {
	tools := &fakeTools{answer: func(string, map[string]any) (ToolResult, error) {
		return ToolResult{Text: "a search result of moderate length, cut by nothing"}, nil
	}}
	msgs := userTask("Research Go modules and report.")
	observe := func(Event) {}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(ctx, replayClient{}, tools, msgs, Config{Stage: "bench"}, observe)
		if err != nil || res.ModelCalls != benchToolTurns+1 {
			b.Fatalf("%v, %d model calls", err, res.ModelCalls)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchToolTurns+1)), "ns/call")
}
