package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/codecheck"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/sandbox"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// The article's sections as the scripted model writes them. The first
// draft is thin (the critic fails it); the draft written with the
// critique's feedback passes. The Python block has a bug that only running
// it shows; the code check's fix loop repairs it.
const (
	sectionJSON = "## Asking for JSON\n\nSend a schema in the `format` field ([API docs](%s)).\n\n```python\nimport json\nanswer = {\"name\": \"icm\", \"stars\": 3}\nprint(json.dumps(anwser))\n```\n"
	sectionGo   = "## Checking the answer\n\nDecode it and check the fields ([notes](%s)).\n\n```go\npackage main\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n)\n\nfunc main() {\n\tvar v struct{ Name string }\n\tif err := json.Unmarshal([]byte(`{\"Name\":\"icm\"}`), &v); err != nil {\n\t\tpanic(err)\n\t}\n\tfmt.Println(v.Name)\n}\n```\n"
	better      = "\nEvery answer is validated in code before it is used.\n"
)

func techSources(page string) string {
	return "# Sources\n\n## API documentation\n\n- The chat endpoint takes `format`.\nSources: " + page + "\n\n## ollama-mini repository\n\n- main.py asks for JSON.\nSources: pipeline/01-sources/repo\n\n## Notes\n\n- Validate in code.\nSources: pipeline/01-sources/files/notes.md\n"
}

func critique(score int) map[string]any {
	sc := func(n int) map[string]any { return map[string]any{"score": n, "reason": "scored"} }
	return map[string]any{
		"scores":             map[string]any{"technical_depth": sc(score), "code_quality": sc(score), "structure_clarity": sc(score), "citation_fidelity": sc(score)},
		"specific_critiques": []string{"The first section never says the answer is checked."},
		"required_revisions": []string{"Say that every answer is validated in code."},
	}
}

func TestTechArticleEndToEnd(t *testing.T) {
	if err := sandbox.Available(); err != nil {
		t.Skip(err)
	}
	site := sites.New(t)
	pageA, pageB, pageC := site.URL+sites.PathLong, site.URL+sites.PathNested, site.URL+sites.PathLinks
	searx := fakesearx.New(t, func(q string) []fakesearx.Result {
		if strings.Contains(q, "validate") {
			return []fakesearx.Result{{Title: "Validation guide", URL: pageC, Content: "validate"}}
		}
		return []fakesearx.Result{{Title: "Format guide", URL: pageB, Content: "format"}}
	})
	h := newHarness(t, "tech-article", ollamatest.Config{})
	cfg := `[model]
name = "` + model + `"

[workflow]
gate = "explicit"
max_tool_calls = 8
parallel = 2

[mcp.servers.search-server]
command = "icm"
args = ["mcp", "search", "--searxng", "` + searx.URL + `"]

[mcp.servers.browser-server]
command = "icm"
args = ["mcp", "browser", "--allow-host", "127.0.0.1", "--no-cache", "--model", "` + model + `", "--ollama", "` + h.srv.URL() + `"]

[mcp.servers.ingest-server]
command = "icm"
args = ["mcp", "ingest", "--no-clone"]
`
	write := func(rel, body string) {
		p := filepath.Join(h.dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("config.toml", cfg)
	write("pipeline/01-sources/input.md", "# Topic\n\nStructured output from a local model.\n\n## Web pages\n\n- "+pageA+"\n\n## Repository\n\n- repo\n\n## Local files\n\n- files/notes.md\n")
	write("pipeline/01-sources/repo/.gitignore", "*.log\n")
	write("pipeline/01-sources/repo/main.py", "import json\nprint(json.dumps({'format': 'json'}))\n")
	write("pipeline/01-sources/repo/debug.log", "IGNORED-BY-GITIGNORE\n")
	// Its Script stages start icm again (icm research, critique,
	// code-check), which acts only for a workspace its person trusted.
	trusttest.Grant(t, h.dir)

	srv := h.srv
	// 01-sources: read all three sources in one turn, then write the digest.
	src := ollamatest.UserContains("Read each one: web pages")
	srv.On(ollamatest.And(src, ollamatest.Not(ollamatest.HasToolResult("")))).Reply(ollamatest.Calls(
		ollamatest.Call("ingest-server_ingest_repo", map[string]any{"source": "pipeline/01-sources/repo"}),
		ollamatest.Call("ingest-server_ingest_files", map[string]any{"paths": []string{"pipeline/01-sources/files/notes.md"}}),
		ollamatest.Call("browser-server_summarize", map[string]any{"url": pageA, "question": "What does it say about format?"})))
	srv.On(ollamatest.And(src, ollamatest.HasToolResult(""))).Reply(ollamatest.Text(techSources(pageA)))
	// 02-research: round 1 and round 2 add queries, round 3 finds nothing missing.
	srv.On(ollamatest.LastUserContains("Round 1 of 3")).Reply(ollamatest.JSON(map[string]any{"queries": []map[string]string{{"query": "ollama format json schema", "reason": "how to pass a schema"}}}))
	srv.On(ollamatest.LastUserContains("Round 2 of 3")).Reply(ollamatest.JSON(map[string]any{"queries": []map[string]string{{"query": "validate model json output", "reason": "how to check the answer"}}}))
	srv.On(ollamatest.LastUserContains("Round 3 of 3")).Reply(ollamatest.JSON(map[string]any{"queries": []any{}}))
	// 03-outline.
	srv.On(ollamatest.UserContains("Plan an article on the topic")).Reply(ollamatest.Text(
		"# Outline\n\n## Asking for JSON\n\n- Words: 200\n- Code: python\n- Points: the format field\n- Cite: " + pageA + "\n\n## Checking the answer\n\n- Words: 200\n- Code: go\n- Points: decode and check\n- Cite: " + pageC + "\n\n## Where to go next\n\n- Words: 100\n- Code: none\n- Points: further reading\n- Cite: " + pageB + "\n"))
	// Later stages first: their prompts hold the draft's headings too.
	// 05-critique: the model only scores; code decides.
	srv.On(ollamatest.And(ollamatest.HasFormat(), ollamatest.LastUserContains("validated in code"))).Reply(ollamatest.JSON(critique(8)))
	srv.On(ollamatest.And(ollamatest.HasFormat(), ollamatest.LastUserContains("<article>"))).Reply(ollamatest.JSON(critique(5)))
	// 06-revise keeps the bug in the Python block.
	srv.On(ollamatest.UserContains("Revise the draft into the finished article")).Reply(ollamatest.Text(
		"# Structured output from a local model\n\nAsk for JSON that matches a schema. Then check it in code.\n\n" +
			strings.Replace(sectionJSON, "%s", pageA, 1) + better + "\n" + strings.Replace(sectionGo, "%s", pageC, 1) +
			"\n## Where to go next\n\nRead the [format guide](" + pageB + ").\n"))
	// 04-draft: with the critique's feedback the first section gets better.
	feedback := ollamatest.UserContains("send-back 1 of 1")
	srv.On(ollamatest.And(feedback, ollamatest.LastUserContains("## Asking for JSON"))).Reply(ollamatest.Text(strings.Replace(sectionJSON, "%s", pageA, 1) + better))
	srv.On(ollamatest.LastUserContains("## Asking for JSON")).Reply(ollamatest.Text(strings.Replace(sectionJSON, "%s", pageA, 1)))
	srv.On(ollamatest.LastUserContains("## Checking the answer")).Reply(ollamatest.Text(strings.Replace(sectionGo, "%s", pageC, 1)))
	srv.On(ollamatest.LastUserContains("## Where to go next")).Reply(ollamatest.Text("## Where to go next\n\nRead the [format guide](" + pageB + ")."))
	// 07-code-check: the fix for the failing block.
	srv.On(ollamatest.LastUserContains("NameError")).Reply(ollamatest.Text(
		"```python\nimport json\nanswer = {\"name\": \"icm\", \"stars\": 3}\nprint(json.dumps(answer))\n```"))
	// The reader's own map and reduce calls.
	srv.Default(ollamatest.Text("The page explains how to ask for JSON with a schema and where the server listens."))

	checker := &codecheck.Checker{Sandbox: &sandbox.Runner{Exe: icmBin}}
	opts := func() workflow.Options { return workflow.Options{Self: icmBin, CodeBlocks: checker} }
	approve := func(stage string) {
		t.Helper()
		if _, err := workflow.Approve(context.Background(), h.ws(), stage, workflow.ApproveOptions{Permit: trusted(h.ws()), CodeBlocks: checker}); err != nil {
			t.Fatalf("approve %s: %v", stage, err)
		}
	}
	runStage := func(want string) *report.Summary {
		t.Helper()
		sum := h.mustRun(opts())
		if len(sum.Ran) != 1 || sum.Ran[0].Stage != want {
			t.Fatalf("ran %+v, want %s; next %+v", sum.Ran, want, sum.Next)
		}
		return sum
	}

	runStage("01-sources")
	if got := h.read("pipeline/01-sources/output/sources.md"); !strings.Contains(got, "## ollama-mini repository") {
		t.Fatalf("sources:\n%s", got)
	}
	var repoDigest string
	for _, r := range srv.ChatRequests() {
		for _, m := range r.ToolResults() {
			if strings.Contains(m.Content, "Directory structure:") {
				repoDigest = m.Content
			}
		}
	}
	if !strings.Contains(repoDigest, "File: main.py") || strings.Contains(repoDigest, "IGNORED-BY-GITIGNORE") {
		t.Errorf("the repository digest the model saw:\n%s", repoDigest)
	}
	approve("01-sources")

	runStage("02-research")
	research := h.read("pipeline/02-research/output/research.md")
	for _, want := range []string{"## Round 1", "ollama format json schema", "## Round 2", "validate model json output", "Sources: " + pageB, "Sources: " + pageC} {
		if !strings.Contains(research, want) {
			t.Errorf("research lacks %q:\n%s", want, research)
		}
	}
	if strings.Contains(research, "## Round 3") {
		t.Error("round 3 named nothing new and must not appear")
	}
	approve("02-research")

	runStage("03-outline")
	approve("03-outline")
	runStage("04-draft")
	approve("04-draft")

	// The first critique fails in code and sends the draft back.
	runStage("05-critique")
	var verdict struct {
		Pass     bool    `json:"pass"`
		Overall  float64 `json:"overall"`
		SendBack struct {
			Sent  bool `json:"sent"`
			Round int  `json:"round"`
		} `json:"send_back"`
	}
	json.Unmarshal([]byte(h.read("pipeline/05-critique/output/verdict.json")), &verdict)
	if verdict.Pass || verdict.Overall != 50 || !verdict.SendBack.Sent || verdict.SendBack.Round != 1 {
		t.Fatalf("first verdict %+v", verdict)
	}
	if _, err := workflow.Approve(context.Background(), h.ws(), "05-critique", workflow.ApproveOptions{Permit: trusted(h.ws())}); !errors.Is(err, workflow.ErrVerifyFailed) {
		t.Fatalf("a failing verdict was approvable: %v", err)
	}
	if st := h.status(); st["04-draft"] != state.Stale {
		t.Fatalf("after the send-back 04-draft is %s, want stale", st["04-draft"])
	}
	runStage("04-draft")
	if got := h.read("pipeline/04-draft/output/article.md"); !strings.Contains(got, "validated in code") {
		t.Errorf("the redraft did not use the feedback:\n%s", got)
	}
	approve("04-draft")
	runStage("05-critique")
	json.Unmarshal([]byte(h.read("pipeline/05-critique/output/verdict.json")), &verdict)
	if !verdict.Pass || verdict.Overall != 80 || verdict.SendBack.Sent {
		t.Fatalf("second verdict %+v", verdict)
	}
	approve("05-critique")

	runStage("06-revise")
	approve("06-revise")

	// The code check: the Python block fails, the model fixes it, it passes.
	sum := runStage("07-code-check")
	if v := sum.Ran[0].Verify; len(v) != 1 || !v[0].OK {
		t.Fatalf("07 verify %+v", v)
	}
	article := h.read("pipeline/07-code-check/output/article.md")
	if !strings.Contains(article, "print(json.dumps(answer))") || strings.Contains(article, "anwser") {
		t.Errorf("the fix is not in the article:\n%s", article)
	}
	if rep := h.read("pipeline/07-code-check/output/code-report.md"); !strings.Contains(rep, "2 block(s): 1 passed as written, 1 fixed, 0 failing") || !strings.Contains(rep, "NameError") {
		t.Errorf("code report:\n%s", rep)
	}
	approve("07-code-check")

	sum = h.mustRun(opts())
	if len(sum.Ran) != 1 || sum.Ran[0].Stage != "08-publish" || !sum.Ran[0].AutoApproved || sum.Next.Action != state.ActionDone {
		t.Fatalf("publish: %+v next %+v", sum.Ran, sum.Next)
	}
	page := h.read("pipeline/08-publish/output/article.html")
	for _, want := range []string{"<title>Structured output from a local model</title>", `<nav class="toc"`, `id="ref-1"`, `href="#ref-3"`, `<pre class="code"><code class="language-python">`, "API documentation"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	t.Logf("article.html: %d bytes", len(page))

	// The trace holds the subcommands' model and tool calls.
	kinds := map[string]map[string]int{}
	traces, _ := filepath.Glob(filepath.Join(h.dir, "history", "*.jsonl"))
	for _, p := range traces {
		data, _ := os.ReadFile(p)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var ev report.Event
			if json.Unmarshal([]byte(line), &ev) != nil {
				t.Fatalf("%s: bad trace line %q", p, line)
			}
			if kinds[ev.Stage] == nil {
				kinds[ev.Stage] = map[string]int{}
			}
			kinds[ev.Stage][ev.Kind]++
		}
	}
	for stage, want := range map[string][2]int{"01-sources": {2, 3}, "02-research": {3, 4}, "05-critique": {2, 0}, "07-code-check": {1, 0}} {
		if kinds[stage][report.EventModel] < want[0] || kinds[stage][report.EventTool] < want[1] {
			t.Errorf("trace of %s: %v, want at least %d model and %d tool events", stage, kinds[stage], want[0], want[1])
		}
	}
	_ = context.Background
}
