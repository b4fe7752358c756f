package workflow_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/toolbox"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

const model = "qwen3.5:9b"

// harness is a copy of a workspace wired to a scripted model server and
// icm's own MCP servers (over stdio, as a person would run them).
type harness struct {
	t      *testing.T
	dir    string
	srv    *ollamatest.Server
	client llm.Client
	events []report.Event
}

func newHarness(t *testing.T, name string, cfg ollamatest.Config) *harness {
	t.Helper()
	return harnessIn(t, wstest.Copy(t, name), cfg)
}

// harnessIn is a harness over the workspace in dir with a scripted server
// (the default model, unless cfg names models) and a client that does not
// retry.
func harnessIn(t *testing.T, dir string, cfg ollamatest.Config) *harness {
	t.Helper()
	if cfg.Models == nil {
		cfg.Models = []ollamatest.Model{{Name: model, ContextLength: 32768, Family: "qwen3", Capabilities: []string{"completion", "tools"}}}
	}
	h := &harness{t: t, dir: dir, srv: ollamatest.New(t, cfg)}
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(h.srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	return h
}

// wireServers points the workspace's MCP servers at the fakes, and the
// model client at the scripted server through the API of provider
// ("ollama" or "openai"), built from config.toml as icm run builds it.
func (h *harness) wireServers(searx, model, provider string) {
	base := h.srv.URL()
	if provider == llm.ProviderOpenAI {
		base += "/v1"
	}
	cfg := `[model]
provider = "` + provider + `"
base_url = "` + base + `"
name = "` + model + `"
temperature = 0.1

[workflow]
gate = "explicit"
max_tool_calls = 8
parallel = 2

[mcp.servers.search-server]
command = "icm"
args = ["mcp", "search", "--searxng", "` + searx + `"]

[mcp.servers.browser-server]
command = "icm"
args = ["mcp", "browser", "--allow-host", "127.0.0.1", "--no-cache", "--model", "` + model + `", "--ollama", "` + h.srv.URL() + `"]
`
	if err := os.WriteFile(filepath.Join(h.dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		h.t.Fatal(err)
	}
	c, err := llm.FromConfig(h.ws().Config.Model, func(string) string { return "" }, llm.WithPermit(act.Own("a test's own model server")), llm.WithRetry(0, 1))
	if err != nil {
		h.t.Fatal(err)
	}
	h.client = c
}

func (h *harness) ws() *workspace.Workspace {
	ws, err := workspace.Open(h.dir, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return ws
}

func (h *harness) run(opts workflow.Options) (*report.Summary, error) {
	h.t.Helper()
	ws := h.ws()
	box, _ := toolbox.LoadWith(ws, toolbox.Self{Path: icmBin}, nil)
	opts.Client = h.client
	opts.Tools = box.Opener(tools.DefaultOptions(ws.Root, ws.Config))
	opts.Check.Servers = box.Names()
	opts.Progress = func(e report.Event) { h.events = append(h.events, e) }
	if opts.Permit == nil {
		opts.Permit = trusted(ws)
	}
	eng, err := workflow.New(ws, opts)
	if err != nil {
		h.t.Fatal(err)
	}
	return eng.Run(context.Background())
}

// trusted is ws's permit when its person trusts what it names (as
// --trust does): the session's gate, each command's files pinned.
func trusted(ws *workspace.Workspace) act.Permit {
	return trust.Decide(ws.Root, trust.Of(ws, trust.Options{}), trust.Inputs{Explicit: true}).Permit(ws)
}

func (h *harness) mustRun(opts workflow.Options) *report.Summary {
	h.t.Helper()
	sum, err := h.run(opts)
	if err != nil {
		h.t.Fatalf("run: %v", err)
	}
	return sum
}

func (h *harness) approve(stage string) {
	h.t.Helper()
	if _, err := workflow.Approve(context.Background(), h.ws(), stage, workflow.ApproveOptions{Permit: trusted(h.ws())}); err != nil {
		h.t.Fatalf("approve %s: %v", stage, err)
	}
}

func (h *harness) read(rel string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.dir, rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

func (h *harness) status() map[string]state.Status {
	h.t.Helper()
	ws := h.ws()
	out := map[string]state.Status{}
	for _, st := range ws.Stages {
		s := stageState(h.t, ws, st.Name)
		out[st.Name] = s.Status
	}
	return out
}

func scriptCourse(srv *ollamatest.Server, pageURL string) {
	srv.On(ollamatest.UserContains("Write four to six learning")).Reply(ollamatest.Text(
		"Here are the objectives:\n\n1. Install Ollama and pull a small model.\n2. Call the local API from a Python script."))
	research := ollamatest.UserContains("For each learning objective, find one or two")
	srv.On(ollamatest.And(research, ollamatest.Not(ollamatest.HasToolResult("")))).Reply(
		ollamatest.Calls(ollamatest.Call("search-server_search", map[string]any{"query": "install ollama", "max_results": 3})))
	srv.On(ollamatest.And(research, ollamatest.HasToolResult("search-server_search"), ollamatest.Not(ollamatest.HasToolResult("browser-server_summarize")))).Reply(
		ollamatest.Calls(ollamatest.Call("browser-server_summarize", map[string]any{"url": pageURL, "question": "How do I install it?"})))
	srv.On(ollamatest.And(research, ollamatest.HasToolResult("browser-server_summarize"))).Reply(ollamatest.Text(
		"## Install Ollama and pull a small model\n- The installer sets up a local server on port 11434.\nSources: " + pageURL + "\n\n" +
			"## Call the local API from a Python script\n- POST to /api/chat.\nSources: " + pageURL + "\n"))
	srv.On(ollamatest.UserContains("Turn the objectives and the research notes")).Reply(ollamatest.Text(
		"# Outline\n\n## Module 1: Install\n- run the installer\n\n## Module 2: Call it from Python\n- requests.post"))
	srv.On(ollamatest.LastUserContains("## Module 1: Install")).Reply(ollamatest.Text("## Module 1: Install\n\nRun the installer, then `ollama serve`."))
	srv.On(ollamatest.LastUserContains("## Module 2: Call it from Python")).Reply(ollamatest.Text("## Module 2: Call it from Python\n\nPost JSON to the chat endpoint."))
	// The reader's own map and reduce calls (no tools offered).
	srv.Default(ollamatest.Text("The page explains how to install the server and where it listens."))
}

// TestCourseResearchEndToEnd runs the sample pipeline through its gates
// over each model API: Ollama's native one and the OpenAI-compatible one
// (the same scripted model behind both).
func TestCourseResearchEndToEnd(t *testing.T) {
	for _, provider := range []string{llm.ProviderOllama, llm.ProviderOpenAI} {
		t.Run(provider, func(t *testing.T) { courseResearchEndToEnd(t, provider) })
	}
}

func courseResearchEndToEnd(t *testing.T, provider string) {
	site := sites.New(t)
	pageURL := site.URL + sites.PathLong
	searx := fakesearx.New(t, func(q string) []fakesearx.Result {
		return []fakesearx.Result{{Title: "Install guide", URL: pageURL, Content: "How to install."}}
	})
	h := newHarness(t, "course-research", ollamatest.Config{})
	h.wireServers(searx.URL, model, provider)
	scriptCourse(h.srv, pageURL)

	want := func(what string, st map[string]state.Status) {
		t.Helper()
		if got := h.status(); !mapsEqual(got, st) {
			t.Fatalf("%s: status %v, want %v", what, got, st)
		}
	}
	sum := h.mustRun(workflow.Options{})
	if len(sum.Ran) != 1 || sum.Ran[0].Stage != "01-scope" || sum.Next.Action != state.ActionApprove {
		t.Fatalf("first run: %+v", sum)
	}
	if got := h.read("pipeline/01-scope/output/objectives.md"); !strings.HasPrefix(got, "1. Install Ollama") {
		t.Errorf("objectives (the chat preamble must be gone):\n%s", got)
	}
	want("after 01", map[string]state.Status{"01-scope": state.Awaiting, "02-research": state.Pending, "03-outline": state.Pending, "04-draft": state.Pending})

	// The gate holds: running again without approving runs nothing.
	before := len(h.srv.ChatRequests())
	sum = h.mustRun(workflow.Options{})
	if len(sum.Ran) != 0 || len(h.srv.ChatRequests()) != before {
		t.Fatalf("a run at the gate ran %d stages and %d model calls", len(sum.Ran), len(h.srv.ChatRequests())-before)
	}
	h.approve("01-scope")

	h.mustRun(workflow.Options{})
	notes := h.read("pipeline/02-research/output/notes.md")
	if !strings.Contains(notes, "Sources: "+pageURL) {
		t.Errorf("notes:\n%s", notes)
	}
	// The research stage saw exactly the tools its contract names.
	var offered []string
	for _, r := range h.srv.ChatRequests() {
		if strings.Contains(r.LastUser(), "For each learning objective") && len(r.ToolNames()) > 0 {
			offered = r.ToolNames()
			break
		}
	}
	sort.Strings(offered)
	wantTools := []string{"browser-server_extract", "browser-server_fetch_snippet", "browser-server_fetch_urls", "browser-server_summarize", "search-server_search"}
	if !slices.Equal(offered, wantTools) {
		t.Errorf("tools offered to 02-research = %v, want %v", offered, wantTools)
	}
	if site.Hits(sites.PathLong) == 0 {
		t.Error("the reader never fetched the page the model asked for")
	}
	h.approve("02-research")

	h.mustRun(workflow.Options{})
	h.approve("03-outline")
	sum = h.mustRun(workflow.Options{})
	draft := h.read("pipeline/04-draft/output/draft.md")
	i1, i2 := strings.Index(draft, "## Module 1"), strings.Index(draft, "## Module 2")
	if i1 < 0 || i2 < i1 {
		t.Errorf("draft does not hold both modules in order:\n%s", draft)
	}
	if sum.Ran[0].Items != 2 {
		t.Errorf("04-draft ran %d items, want 2", sum.Ran[0].Items)
	}
	h.approve("04-draft")
	want("all approved", map[string]state.Status{"01-scope": state.Approved, "02-research": state.Approved, "03-outline": state.Approved, "04-draft": state.Approved})

	// An unchanged approved pipeline runs nothing and calls no model.
	before = len(h.srv.ChatRequests())
	sum = h.mustRun(workflow.Options{})
	if len(sum.Ran) != 0 || len(h.srv.ChatRequests()) != before || sum.Next.Action != state.ActionDone {
		t.Errorf("unchanged pipeline: ran %v, %d model calls, next %+v", sum.Ran, len(h.srv.ChatRequests())-before, sum.Next)
	}

	// Every model call bounded its window: Ollama's API takes num_ctx; the
	// OpenAI-compatible one cannot, so the prompt was checked against the
	// server's window before the call and max_tokens bounds the answer. The
	// reader tools (icm mcp browser) always speak Ollama's API.
	engineCalls := 0
	for _, rec := range h.srv.Requests() {
		r := rec.Chat
		if r == nil {
			continue
		}
		switch r.Path {
		case "/api/chat":
			if r.NumCtx() <= 0 {
				t.Errorf("call %d sent no num_ctx", r.Seq)
			}
		case "/v1/chat/completions":
			engineCalls++
			if n, _ := r.IntOption("num_predict"); n <= 0 {
				t.Errorf("call %d sent no max_tokens", r.Seq)
			}
		}
		if rec.Reply != nil && rec.Reply.Truncated {
			t.Errorf("call %d: the server cut the prompt", r.Seq)
		}
	}
	if wantOpenAI := provider == llm.ProviderOpenAI; (engineCalls >= 6) != wantOpenAI {
		t.Errorf("%d engine calls went over the OpenAI-compatible API (provider %s)", engineCalls, provider)
	}
	// The trace holds model and tool calls.
	traces, _ := filepath.Glob(filepath.Join(h.dir, "history", "*.jsonl"))
	kinds := map[string]int{}
	for _, p := range traces {
		data, _ := os.ReadFile(p)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var ev report.Event
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("%s: bad trace line %q: %v", p, line, err)
			}
			kinds[ev.Kind]++
		}
	}
	if kinds[report.EventModel] < 6 || kinds[report.EventTool] != 2 || kinds[report.EventStageEnd] != 4 {
		t.Errorf("trace event counts = %v", kinds)
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
