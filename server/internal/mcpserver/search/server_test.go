package search

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/mcpserver/internal/mcpcall"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
)

func TestSearchTool(t *testing.T) {
	fake := fakesearx.New(t, nil)
	c := mcpcall.Connect(t, NewServer(Deps{Searcher: &Client{BaseURL: fake.URL}}))
	tests := []struct {
		name      string
		args      map[string]any
		wantItems int
	}{
		{"default count", map[string]any{"query": "icm workspaces"}, DefaultResults},
		{"asked count", map[string]any{"query": "icm workspaces", "max_results": 3}, 3},
		{"count over the cap is capped", map[string]any{"query": "x", "max_results": 500}, 8},
		{"count below one is one", map[string]any{"query": "x", "max_results": 0}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, isErr := mcpcall.Call(t, c, "search", tt.args)
			if isErr {
				t.Fatalf("tool error: %s", text)
			}
			for i := 1; i <= tt.wantItems; i++ {
				want := fakesearx.Canned(tt.args["query"].(string))[i-1]
				for _, s := range []string{"[" + string(rune('0'+i)) + "] " + want.Title, want.URL, want.Content} {
					if !strings.Contains(text, s) {
						t.Errorf("result lacks %q:\n%s", s, text)
					}
				}
			}
			if strings.Contains(text, "["+string(rune('0'+tt.wantItems+1))+"]") {
				t.Errorf("more than %d results:\n%s", tt.wantItems, text)
			}
			if !strings.Contains(text, "Read the most relevant result page") {
				t.Errorf("result does not tell the model to read a page:\n%s", text)
			}
		})
	}
	if q := fake.Queries(); len(q) != len(tests) || q[0] != "icm workspaces" {
		t.Fatalf("queries = %q", q)
	}
}

func TestSearchToolErrors(t *testing.T) {
	// A port nothing listens on.
	dead := closedport.URL(t)

	forbidden := fakesearx.New(t, nil)
	forbidden.Fail(403)
	limited := fakesearx.New(t, nil)
	limited.Fail(429)
	empty := fakesearx.New(t, func(string) []fakesearx.Result { return nil })

	tests := []struct {
		name    string
		url     string
		args    map[string]any
		isError bool
		want    string
	}{
		{"unreachable says how to start it", dead, map[string]any{"query": "q"}, true, "docker compose -f docker/compose.yml up -d searxng"},
		{"json format off", forbidden.URL, map[string]any{"query": "q"}, true, "formats: [html, json]"},
		{"limiter on", limited.URL, map[string]any{"query": "q"}, true, "limiter: false"},
		{"no query", forbidden.URL, map[string]any{}, true, `"query" argument is required`},
		{"no results is not an error", empty.URL, map[string]any{"query": "zzz"}, false, `No results for "zzz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mcpcall.Connect(t, NewServer(Deps{Searcher: &Client{BaseURL: tt.url}}))
			text, isErr := mcpcall.Call(t, c, "search", tt.args)
			if isErr != tt.isError || !strings.Contains(text, tt.want) {
				t.Fatalf("isError=%v text=%q; want isError=%v containing %q", isErr, text, tt.isError, tt.want)
			}
			// The error reaches the editor (the run's notice, the Runs
			// view): it names no command-line flag. Before: "--searxng URL".
			if strings.Contains(text, "--") {
				t.Errorf("the error names a command-line flag: %q", text)
			}
		})
	}
}

func TestSearchToolDescriptionGuidesSmallModels(t *testing.T) {
	tool, _ := SearchTool(nil)
	for _, s := range []string{"read the most relevant result page", "do not use it for arithmetic"} {
		if !strings.Contains(tool.Description, s) {
			t.Errorf("description lacks %q", s)
		}
	}
}
