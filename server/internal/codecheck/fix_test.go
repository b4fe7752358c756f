package codecheck

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

const model = "qwen3.5:9b"

func scripted(t *testing.T) (*ollamatest.Server, llm.Client) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768, Family: "qwen3", Capabilities: []string{"completion"}}}})
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func TestFixLoopRepairsAndRechecks(t *testing.T) {
	needSandbox(t)
	srv, client := scripted(t)
	// The first fix is still wrong; the second one runs.
	srv.On(ollamatest.LastUserContains("NameError")).Reply(
		ollamatest.Text("```python\nprint(greting)\n```"),
		ollamatest.Text("Here is the fix:\n\n```python\ngreeting = 'hi'\nprint(greeting)\n```"))
	src := doc(fence("python", "print('fine')\n"), "- In a list:\n\n  "+strings.ReplaceAll(fence("python", "print(greeting)\n"), "\n", "\n  "))
	f := &Fixer{Checker: checker(), Client: client, Model: model}
	out, reps, err := f.Fix(context.Background(), []byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || !reps[0].Result.OK || len(reps[0].Attempts) != 0 {
		t.Fatalf("reports %+v", reps)
	}
	r := reps[1]
	if !r.Result.OK || len(r.Attempts) != 2 || r.Attempts[0].OK || !r.Attempts[1].OK || !strings.Contains(r.FirstError, "NameError") {
		t.Fatalf("block 2: %+v", r)
	}
	if !strings.Contains(string(out), "  ```python\n  greeting = 'hi'\n  print(greeting)\n  ```") {
		t.Errorf("the fix is not in the document, indented as the list needs:\n%s", out)
	}
	// The model saw the failing block and its first error only.
	reqs := srv.ChatRequests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].LastUser(), "print(greeting)") || strings.Contains(reqs[0].LastUser(), "Traceback") {
		t.Errorf("requests: %d, first: %s", len(reqs), reqs[0].LastUser())
	}
	// The second request carries the error of the first fix.
	if !strings.Contains(reqs[1].LastUser(), "name 'greting' is not defined") {
		t.Errorf("second request: %s", reqs[1].LastUser())
	}
}

func TestFixLoopGivesUpAfterThreeAttempts(t *testing.T) {
	needSandbox(t)
	srv, client := scripted(t)
	srv.On(ollamatest.Any()).Reply(ollamatest.Text("```python\nraise SystemExit(2)\n```"))
	src := doc(fence("python", "raise SystemExit(1)\n"))
	f := &Fixer{Checker: checker(), Client: client, Model: model}
	out, reps, err := f.Fix(context.Background(), []byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || reps[0].Result.OK || len(reps[0].Attempts) != DefaultAttempts || len(srv.ChatRequests()) != DefaultAttempts {
		t.Fatalf("reports %+v, %d model calls", reps, len(srv.ChatRequests()))
	}
	if string(out) != src {
		t.Errorf("a block no fix could repair must keep its original code:\n%s", out)
	}
	if reps[0].Result.Error != "exited with status 1" || reps[0].Attempts[2].After != "exited with status 2" {
		t.Errorf("report %+v", reps[0])
	}
}
