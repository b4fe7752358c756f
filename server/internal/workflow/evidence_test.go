package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
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
