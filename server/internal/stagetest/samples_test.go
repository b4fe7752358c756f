package stagetest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/codecheck"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/toolbox"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

const sampleModel = "qwen3.5:9b"

// The shipped workspaces' cases are green against a scripted model that
// answers each case the way a capable model would (the research stage
// searches and reads through icm's own MCP servers, against a fake SearXNG
// and a fixture site; the critique stage runs `icm critique` as its
// script), and every case has at least two siblings in its stage.
func TestSampleWorkspaceCasesAreGreen(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stages map[string]int // stage -> at least this many cases
		script func(*ollamatest.Server, string)
	}{
		{"course-research", map[string]int{"01-scope": 2, "02-research": 2, "03-outline": 2, "04-draft": 2}, scriptCourseCases},
		{"tech-article", map[string]int{"03-outline": 2, "04-draft": 2, "05-critique": 2}, scriptArticleCases},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := sites.New(t)
			page := site.URL + sites.PathLong
			searx := fakesearx.New(t, func(string) []fakesearx.Result {
				return []fakesearx.Result{{Title: "Ollama on Linux", URL: page, Content: "Install and run the server."}}
			})
			srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: sampleModel, ContextLength: 32768, Family: "qwen3", Capabilities: []string{"completion", "tools"}}}})
			tc.script(srv, page)
			dir := wstest.Copy(t, tc.name)
			wireSample(t, dir, srv.URL(), searx.URL)
			ws, err := workspace.Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			rep := check.Run(ws, check.Options{Servers: map[string]bool{"search-server": true, "browser-server": true, "ingest-server": true}})
			for _, f := range rep.Findings {
				if strings.Contains(f.File, "/tests/") {
					t.Errorf("a finding on a sample case: %s %s", f.File, f)
				}
			}
			counts := map[string]int{}
			sel, err := Select(ws, rep, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sel {
				counts[s.Stage.Name]++
			}
			for st, n := range tc.stages {
				if counts[st] < n {
					t.Errorf("%s has %d cases, want at least %d", st, counts[st], n)
				}
			}
			client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
			if err != nil {
				t.Fatal(err)
			}
			box, _ := toolbox.LoadWith(ws, toolbox.Self{Path: icmBin}, nil)
			// The person trusts the copy of the sample; each job's copy
			// carries that trust, so the icm its Script stages start
			// there (icm critique) may use the model server.
			trusttest.Grant(t, dir)
			store := trusttest.Store(t)
			granted := trust.Decide(ws.Root, trust.Of(ws, trust.Options{}), trust.Inputs{Store: store})
			backend := Backend{
				Client: client, Self: icmBin, Check: check.Options{Servers: box.Names()}, CodeBlocks: &codecheck.Checker{},
				Tools: func(root string) workflow.ToolOpener {
					return box.Opener(tools.DefaultOptions(root, ws.Config))
				},
				Trust:  func(root string) (func(), error) { return store.Carry(granted, root, time.Now()) },
				Permit: func(cp *workspace.Workspace) act.Permit { return granted.Permit(cp) },
			}
			res := New(ws, backend, Options{Parallel: 3}).Run(context.Background(), sel)
			for _, r := range res.Results {
				if r.Status != report.TestPassed {
					t.Errorf("%s: %s: %s %s\n%s", r.Case, r.Status, r.FirstFailure, r.Error, r.Outputs[r.Output])
				}
				for _, c := range r.Checks {
					if c.Kind == "rubric" && (c.Score == nil || c.Reason == "") {
						t.Errorf("%s: the rubric %q was not judged", r.Case, c.Expect)
					}
				}
			}
			if t.Failed() {
				data, _ := json.MarshalIndent(res.Matrix, "", "  ")
				t.Logf("matrix:\n%s", data)
			}
		})
	}
}

// item matches the call of one For each item, by the heading the
// assembled context gives the item to work on (other text of the prompt
// may hold the same heading: the notes, the sibling list).
func item(title string) ollamatest.Matcher {
	return ollamatest.LastUserMatches(`to work on now[^\n]*\n\n## ` + regexp.QuoteMeta(title) + `\n`)
}

// wireSample points a copy of a shipped workspace at the test servers:
// the scripted model, the fake SearXNG and the fixture site (allowed for
// the reader).
func wireSample(t *testing.T, dir, model, searx string) {
	t.Helper()
	p := filepath.Join(dir, "config.toml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	s = strings.Replace(s, "[model]\n", "[model]\nbase_url = \""+model+"\"\n", 1)
	s = strings.Replace(s, "http://localhost:8090", searx, 1)
	s = strings.Replace(s, `args = ["mcp", "browser"]`, `args = ["mcp", "browser", "--allow-host", "127.0.0.1", "--no-cache", "--model", "`+sampleModel+`", "--ollama", "`+model+`"]`, 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// judgeRules answer the rubric judge (icm test's) and the article critic
// (icm critique's) with structured output.
func judgeRules(srv *ollamatest.Server) {
	srv.On(ollamatest.SystemContains("one step of a writing pipeline")).Reply(ollamatest.JSON(map[string]any{
		"score": 8, "reason": "The output does what the criterion asks, with one small gap."}))
	score := func(n int, why string) map[string]any { return map[string]any{"score": n, "reason": why} }
	srv.On(ollamatest.And(ollamatest.SystemContains("strict technical reviewer"), ollamatest.LastUserContains("seamless"))).Reply(ollamatest.JSON(map[string]any{
		"scores": map[string]any{
			"technical_depth":   score(3, "It claims JSON works every time without saying how."),
			"code_quality":      score(2, "The block uses json and answer without defining them."),
			"structure_clarity": score(5, "Short, but the one section does not say what to do."),
			"citation_fidelity": score(1, "No claim links a source, and the port 8080 is wrong."),
		},
		"specific_critiques": []string{"\"How it works\": the default port is 11434, not 8080, and no source is given."},
		"required_revisions": []string{"Link the API reference for the format field and the port.", "Make the code block runnable: import json and define the answer."},
	}))
	srv.On(ollamatest.SystemContains("strict technical reviewer")).Reply(ollamatest.JSON(map[string]any{
		"scores": map[string]any{
			"technical_depth":   score(8, "Shows the format field and why values still need checking."),
			"code_quality":      score(8, "Both blocks are complete; the server one is marked no-run."),
			"structure_clarity": score(8, "Request first, then the check."),
			"citation_fidelity": score(9, "Each fact links the API reference or the blog post."),
		},
		"specific_critiques": []string{},
		"required_revisions": []string{},
	}))
}

func scriptCourseCases(srv *ollamatest.Server, page string) {
	judgeRules(srv)
	// 01-scope
	srv.On(ollamatest.LastUserContains("command-line tool in Go")).Reply(ollamatest.Text(
		"1. Write a Go command-line tool that reads flags and arguments with the standard flag package.\n" +
			"2. Organise the tool's code into a main package and a small internal package.\n" +
			"3. Test the tool's behaviour with go test and table-driven tests.\n" +
			"4. Build release binaries for Linux, macOS and Windows with go build.\n" +
			"5. Publish a tagged release that users install with go install.\n"))
	srv.On(ollamatest.LastUserContains("local language model answering on their own machine")).Reply(ollamatest.Text(
		"1. Install Ollama and check that its server answers on the local machine.\n" +
			"2. Pull a small model and run a first prompt from the terminal.\n" +
			"3. Call the local model from a Python script with the ollama package.\n" +
			"4. Choose a model size that fits the machine's memory.\n" +
			"5. Fix the two common errors: a refused connection and a model that is not pulled.\n"))
	// 02-research: search, read the best result, write the notes.
	research := ollamatest.UserContains("For each learning objective, find one or two")
	srv.On(ollamatest.And(research, ollamatest.Not(ollamatest.HasToolResult("")))).Reply(
		ollamatest.Calls(ollamatest.Call("search-server_search", map[string]any{"query": "ollama install linux default port", "max_results": 3})))
	srv.On(ollamatest.And(research, ollamatest.HasToolResult("search-server_search"), ollamatest.Not(ollamatest.HasToolResult("browser-server_summarize")))).Reply(
		ollamatest.Calls(ollamatest.Call("browser-server_summarize", map[string]any{"url": page, "question": "How do I install Ollama, and where does its server listen?"})))
	srv.On(ollamatest.And(research, ollamatest.HasToolResult("browser-server_summarize"))).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		if strings.Contains(r.LastUser(), "Pull a small model with `ollama pull`") {
			return ollamatest.Text("## Pull a small model and run a first prompt\n\n" +
				"- `ollama pull qwen3:4b` downloads the model and prints a progress bar per layer.\n" +
				"- `ollama list` shows the installed models with their sizes.\n" +
				"- `ollama run qwen3:4b \"Say hello\"` prints one answer and exits; the first run loads the model, which takes a few seconds.\n\n" +
				"Sources: " + page + "\n")
		}
		return ollamatest.Text("## Install Ollama and check its server\n\n" +
			"- On Linux, the install script sets up Ollama and a service.\n" +
			"- The server listens on http://localhost:11434; `curl http://localhost:11434` answers \"Ollama is running\".\n\n" +
			"Sources: " + page + "\n\n" +
			"## Call a local model from Python\n\n" +
			"- `pip install ollama` installs the client; `ollama.chat(model=..., messages=[...])` returns the reply.\n" +
			"- A refused connection means the server on port 11434 is not running.\n\n" +
			"Sources: " + page + "\n")
	})
	// 03-outline
	srv.On(ollamatest.And(ollamatest.UserContains("Turn the objectives and the research notes"), ollamatest.UserContains("Know where Ollama keeps its models"))).Reply(ollamatest.Text(
		"## Module 1: Install Ollama and check it answers\n\n" +
			"- Install with the script on Linux.\n- Check the server with `curl http://localhost:11434`.\n" +
			"- Note where the service keeps models (/usr/share/ollama/.ollama/models).\n\n" +
			"## Module 2: Call a local model from Python\n\n" +
			"- Install the client with `pip install ollama`.\n- Send one chat message with `ollama.chat`.\n" +
			"- Point the client elsewhere with OLLAMA_HOST. Builds on module 1's running server.\n"))
	srv.On(ollamatest.UserContains("Turn the objectives and the research notes")).Reply(ollamatest.Text(
		"## Module 1: Install Ollama\n\n- Install with `curl -fsSL https://ollama.com/install.sh | sh`.\n" +
			"- Check the server on http://localhost:11434.\n- Start it by hand with `ollama serve`.\n\n" +
			"## Module 2: Your first prompt\n\n- Pull a model with `ollama pull qwen3:4b`.\n- List models with `ollama list`.\n" +
			"- Run one prompt with `ollama run`. Needs the server from module 1.\n\n" +
			"## Module 3: Call the model from Python\n\n- Install the client with `pip install ollama`.\n" +
			"- Send a chat message with `ollama.chat`.\n- Read a refused connection as a stopped server.\n\n" +
			"## Module 4: Pick a model that fits\n\n- A 4B model needs about 3 GB of memory.\n- An 8B model needs about 5 GB.\n" +
			"- Too large a model swaps and answers slowly.\n"))
	// 04-draft, one call per module.
	srv.On(item("Install Ollama")).Reply(ollamatest.Text(
		"## Install Ollama\n\nRun the install script first: it sets up Ollama and a service that starts with the machine.\n\n" +
			"```sh\ncurl -fsSL https://ollama.com/install.sh | sh\ncurl http://localhost:11434\n```\n\n" +
			"The second command should print \"Ollama is running\": the server listens on port 11434. If it does not, start it by hand with `ollama serve`.\n"))
	srv.On(item("Your first prompt")).Reply(ollamatest.Text(
		"## Your first prompt\n\nPull a small model before anything else, because `ollama run` needs it on disk.\n\n" +
			"```sh\nollama pull qwen3:4b\nollama run qwen3:4b \"Say hello\"\n```\n\n" +
			"Expect a pause on the first run: the model loads into memory, which takes a few seconds.\n"))
	srv.On(item("Call the model from Python")).Reply(ollamatest.Text(
		"## Call the model from Python\n\nInstall the client with pip, because it speaks Ollama's API for you.\n\n" +
			"```python\nimport ollama\n\nreply = ollama.chat(model=\"qwen3:4b\", messages=[{\"role\": \"user\", \"content\": \"Hi\"}])\nprint(reply[\"message\"][\"content\"])\n```\n\n" +
			"If the call fails with a refused connection, the server is not running: start it with `ollama serve` and try again.\n"))
	// The reader's own map and reduce calls (no tools offered).
	srv.Default(ollamatest.Text("The page explains how to install Ollama and that its server listens on port 11434."))
}

func scriptArticleCases(srv *ollamatest.Server, _ string) {
	judgeRules(srv)
	api := "https://github.com/ollama/ollama/blob/main/docs/api.md"
	// 03-outline
	srv.On(ollamatest.And(ollamatest.UserContains("Plan an article"), ollamatest.UserContains("Nothing was found beyond the sources"))).Reply(ollamatest.Text(
		"## What structured output is\n\n- Words: 150\n- Code: none\n- Points: the format field; a schema constrains the answer.\n- Cite: " + api + "\n\n" +
			"## A first request\n\n- Words: 250\n- Code: python\n- Points: POST /api/chat with a schema; the local address.\n- Cite: " + api + "\n\n" +
			"## Reading the answer\n\n- Words: 200\n- Code: python\n- Points: the answer is in message.content as JSON text.\n- Cite: " + api + "\n\n" +
			"## Where to go next\n\n- Words: 150\n- Code: none\n- Points: other request options in the reference.\n- Cite: " + api + "\n"))
	srv.On(ollamatest.UserContains("Plan an article")).Reply(ollamatest.Text(
		"## Why ask for a schema\n\n- Words: 150\n- Code: none\n- Points: free text is hard to parse; a schema fixes the shape.\n- Cite: " + api + "\n\n" +
			"## A first request with format\n\n- Words: 300\n- Code: python\n- Points: the format field takes a JSON Schema; stream false gives one object.\n- Cite: " + api + "\n\n" +
			"## The same from the Python client\n\n- Words: 250\n- Code: python\n- Points: ollama.chat passes format through; build the schema as a dict.\n- Cite: https://github.com/ollama/ollama-python\n\n" +
			"## Check the values in code\n\n- Words: 250\n- Code: python\n- Points: the schema constrains the shape, not the values; check required keys with json.loads.\n" +
			"- Cite: https://ollama.com/blog/structured-outputs, https://docs.python.org/3/library/json.html\n\n" +
			"## Limits to know\n\n- Words: 150\n- Code: none\n- Points: a small model can still leave a field empty.\n- Cite: https://ollama.com/blog/structured-outputs\n"))
	// 04-draft, one call per section; the feedback case asks for the port.
	request := "```python no-run\nimport json\nimport urllib.request\n\n" +
		"schema = {\"type\": \"object\", \"required\": [\"city\"], \"properties\": {\"city\": {\"type\": \"string\"}}}\n" +
		"body = {\"model\": \"qwen3:4b\", \"stream\": False, \"format\": schema, \"messages\": [{\"role\": \"user\", \"content\": \"Name a city in Japan.\"}]}\n" +
		"req = urllib.request.Request(\"http://localhost:11434/api/chat\", data=json.dumps(body).encode(), headers={\"Content-Type\": \"application/json\"})\n" +
		"with urllib.request.urlopen(req) as resp:\n    print(json.load(resp)[\"message\"][\"content\"])\n```\n"
	srv.On(ollamatest.And(item("Ask for JSON that matches a schema"), ollamatest.LastUserContains("Round 1: the draft did not pass"))).Reply(ollamatest.Text(
		"## Ask for JSON that matches a schema\n\nThe local server listens on http://localhost:11434 by default " +
			"([API reference](" + api + ")). Put a JSON Schema in the `format` field of a chat request and the answer follows it.\n\n" + request))
	srv.On(item("Ask for JSON that matches a schema")).Reply(ollamatest.Text(
		"## Ask for JSON that matches a schema\n\nPut a JSON Schema in the `format` field and set `stream` to false to get one object back " +
			"([API reference](" + api + ")).\n\n" + request))
	srv.On(item("Check the answer in code")).Reply(ollamatest.Text(
		"## Check the answer in code\n\nParse the answer with [json.loads](https://docs.python.org/3/library/json.html), then check the keys you need: " +
			"the schema fixes the shape, not the values ([API reference](" + api + ")).\n\n" +
			"```python\nimport json\n\nanswer = json.loads('{\"city\": \"Osaka\"}')\nif not answer.get(\"city\"):\n    raise SystemExit(\"city is empty\")\nprint(answer[\"city\"])\n```\n"))
}
