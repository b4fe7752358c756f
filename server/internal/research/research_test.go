package research

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

type fakeTools struct{ calls []string }

func (f *fakeTools) Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	f.calls = append(f.calls, fmt.Sprintf("%s %v", name, args["query"])+fmt.Sprint(args["url"]))
	switch name {
	case "search-server_search":
		q := args["query"].(string)
		slug := strings.ReplaceAll(q, " ", "-")
		return agent.ToolResult{Text: fmt.Sprintf("Results for %q:\n\n[1] Page on %s\n    https://docs.example/%s\n    snippet\n\n[2] Shared page\n    https://docs.example/shared\n    snippet\n", q, q, slug)}, nil
	case "browser-server_summarize":
		return agent.ToolResult{Text: "Summary of " + args["url"].(string)}, nil
	}
	return agent.ToolResult{Text: "unknown", IsError: true}, nil
}

func TestRoundsStopWhenNothingIsMissing(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 32768, Capabilities: []string{"completion"}}}})
	client, _ := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	srv.On(ollamatest.LastUserContains("Round 1 of 3")).Reply(ollamatest.JSON(map[string]any{"queries": []map[string]string{{"query": "ollama format schema", "reason": "how structured output works"}, {"query": "OLLAMA FORMAT  schema", "reason": "duplicate"}}}))
	srv.On(ollamatest.LastUserContains("Round 2 of 3")).Reply(ollamatest.JSON(map[string]any{"queries": []map[string]string{{"query": "ollama format schema", "reason": "asked before"}, {"query": "tool calling", "reason": "the other half"}}}))
	srv.On(ollamatest.LastUserContains("Round 3 of 3")).Reply(ollamatest.JSON(map[string]any{"queries": []any{}}))
	tools := &fakeTools{}
	var events []agent.Event
	r := &Researcher{Client: client, Model: "m", Tools: tools, Search: "search-server_search", Read: "browser-server_summarize", Rounds: 3, Queries: 3, Results: 1, Stage: "02-research",
		Observe: func(e agent.Event) { events = append(events, e) }}
	rounds, err := r.Run(context.Background(), "system", "Process and sources")
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 || len(rounds[0].Queries) != 1 || len(rounds[1].Queries) != 1 || rounds[1].Queries[0].Query != "tool calling" {
		t.Fatalf("rounds %+v", rounds)
	}
	md := Markdown("Research", rounds)
	for _, want := range []string{"## Round 1", "## Round 2", "Sources: https://docs.example/ollama-format-schema", "Summary of https://docs.example/tool-calling"} {
		if !strings.Contains(md, want) {
			t.Errorf("research lacks %q:\n%s", want, md)
		}
	}
	// Round 2's prompt carried round 1's findings.
	reqs := srv.ChatRequests()
	if len(reqs) != 3 || !strings.Contains(reqs[1].LastUser(), "Summary of https://docs.example/ollama-format-schema") || len(reqs[1].Format) == 0 {
		t.Errorf("%d requests; round 2 prompt:\n%s", len(reqs), reqs[1].LastUser())
	}
	tc := 0
	for _, e := range events {
		if e.Kind == agent.EventTool {
			tc++
		}
	}
	if tc != len(tools.calls) || tc != 4 {
		t.Errorf("%d tool events for %d calls: %v", tc, len(tools.calls), tools.calls)
	}
}
