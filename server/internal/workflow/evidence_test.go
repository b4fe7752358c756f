package workflow_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/usersettings"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// After a model stage writes its output, icm works out what each unit
// rests on, from the stage's inputs and what its tools returned, and the
// stage's result says it in one line; asked again for the same output,
// the answer comes from the cache kept beside the record; asked after a
// person edits the output, it is worked out for the edit.
func TestEvidenceAfterARunAndAfterAnEdit(t *testing.T) {
	h := harnessIn(t, wstest.Write(t, lighthouse), ollamatest.Config{})
	h.srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(readCall("_config/signals.md")))
	h.srv.Default(ollamatest.Text("Fog from nine on the watch tonight.\n\nTwo flashes every ten seconds, as the signal codes say.\n\nVolunteers from the harbour association repainted the lamp crimson, see https://logs.example.org/lighthouse.\n"))
	sum := h.mustRun(workflow.Options{})
	if line := sum.Ran[0].Evidence; line != "2 of 3 paragraphs supported · 1 URL never read" {
		t.Errorf("the stage's evidence line = %q", line)
	}

	ctx := context.Background()
	got, err := workflow.Evidence(ctx, h.ws(), "01-log", workflow.EvidenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Cached || got[0].Path != "stages/01-log/output/log.md" {
		t.Fatalf("evidence asked again: %+v", got)
	}
	units := got[0].Units
	if len(units) != 3 || units[1].Status != evidence.Supported || len(units[1].Support) == 0 ||
		units[1].Support[0].SourceKind != evidence.SourceTool || units[1].Support[0].Source != "_config/signals.md" {
		t.Fatalf("units: %+v", units)
	}
	if units[0].Status != evidence.Supported || units[0].Support[0].Source != "stages/01-log/watch.md" {
		t.Errorf("the input's paragraph: %+v", units[0])
	}
	if len(units[2].Marks) != 1 || units[2].Marks[0].Kind != evidence.MarkURL {
		t.Errorf("the invented URL: %+v", units[2])
	}

	out := filepath.Join(h.dir, "stages/01-log/output/log.md")
	if err := os.WriteFile(out, []byte("Fog from nine on the watch tonight.\n\nThe lamp is painted a pale green this year.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = workflow.Evidence(ctx, h.ws(), "01-log", workflow.EvidenceOptions{Cache: evidence.NewCache(4)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Cached || !strings.HasPrefix(got[0].Summary.Text, "1 of 2 paragraphs supported") {
		t.Errorf("evidence of the edit: %+v", got[0].Summary)
	}
}

// The sample workspace end to end with the scripted model and icm's own
// search and browser servers: the research notes cite one page the model
// read and one it never fetched. What the page said is kept with the run;
// the note that rests on it is supported by it, by its address; the one
// citing a page nobody read is unsupported and marked cited, never read.
func TestEvidenceOfTheResearchNotes(t *testing.T) {
	site := sites.New(t)
	pageURL := site.URL + sites.PathLong
	searx := fakesearx.New(t, func(q string) []fakesearx.Result {
		return []fakesearx.Result{{Title: "Workspace guide", URL: pageURL, Content: "A guide."}}
	})
	h := researchHarness(t, searx.URL)
	research := ollamatest.UserContains("For each learning objective, find one or two")
	h.srv.On(ollamatest.And(research, ollamatest.Not(ollamatest.HasToolResult("")))).Reply(
		ollamatest.Calls(ollamatest.Call("search-server_search", map[string]any{"query": "workspace guide", "max_results": 3})))
	h.srv.On(ollamatest.And(research, ollamatest.HasToolResult("search-server_search"), ollamatest.Not(ollamatest.HasToolResult("browser-server_fetch_snippet")))).Reply(
		ollamatest.Calls(ollamatest.Call("browser-server_fetch_snippet", map[string]any{"url": pageURL})))
	never := "https://never.example.org/gpu-guide"
	h.srv.On(ollamatest.And(research, ollamatest.HasToolResult("browser-server_fetch_snippet"))).Reply(ollamatest.Text(
		"## Install Ollama\n- In the workspace guide, section 0 paragraph 0 holds value 100.\nSources: " + pageURL + "\n\n" +
			"## Call the API\n- Volunteers benchmark quantised mixtures on rented clusters every winter.\nSources: " + never + "\n"))
	sum := h.mustRun(workflow.Options{})
	if res := sum.Ran[0]; res.ToolErrors != 0 || res.ToolCalls != 2 {
		t.Fatalf("tool calls %d, errors %d: %+v", res.ToolCalls, res.ToolErrors, res.ToolFailures)
	}
	got, err := workflow.Evidence(context.Background(), h.ws(), "02-research", workflow.EvidenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("evidence of %d outputs", len(got))
	}
	var read, invented *evidence.Unit
	for i := range got[0].Units {
		u := &got[0].Units[i]
		switch {
		case strings.Contains(u.Text, "holds value 100"):
			read = u
		case strings.Contains(u.Text, "Volunteers"):
			invented = u
		}
	}
	if read == nil || read.Status != evidence.Supported || read.Support[0].Source != pageURL || read.Support[0].SourceKind != evidence.SourceTool {
		t.Errorf("the note from the page read: %+v", read)
	}
	if invented == nil || invented.Status != evidence.Unsupported {
		t.Errorf("the invented note: %+v", invented)
	}
	marks := 0
	for _, u := range got[0].Units {
		for _, m := range u.Marks {
			if m.Kind == evidence.MarkURL {
				marks++
				if m.Text != never {
					t.Errorf("a URL the tools read is marked: %+v", m)
				}
			}
		}
	}
	if marks != 1 || !strings.Contains(sum.Ran[0].Evidence, "1 URL never read") {
		t.Errorf("%d URLs marked; the gate's line: %q", marks, sum.Ran[0].Evidence)
	}

	// What a person at the terminal reads: icm review marks the page never
	// fetched, and only that one, and counts the note that rests on the
	// page read as supported.
	cmd := exec.Command(icmBin, "review", "02-research")
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), usersettings.ConfigDirEnv+"="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("icm review 02-research: %v\n%s", err, out)
	}
	review := string(out)
	if !strings.Contains(review, "WARN  pipeline/02-research/output/notes.md:7: cited, never read: "+never) ||
		strings.Contains(review, "cited, never read: "+pageURL) ||
		!strings.Contains(review, "evidence: 1 of 2 list items supported · 1 URL never read") {
		t.Errorf("icm review 02-research does not mark the page never fetched alone:\n%s", review)
	}
}
