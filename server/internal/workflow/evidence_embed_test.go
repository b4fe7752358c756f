package workflow_test

import (
	"context"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// With an embedding model, the evidence after a run and on demand asks
// it about the units the lexical score leaves unsupported: here its
// vectors call every text alike, so the invented paragraph counts as
// supported (its URL is still marked); a model the server lacks leaves
// the lexical line.
func TestEvidenceWithAnEmbeddingModel(t *testing.T) {
	h := harnessIn(t, wstest.Write(t, lighthouse), ollamatest.Config{Embed: func(string) []float32 { return []float32{1, 0} }})
	h.srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(readCall("_config/signals.md")))
	h.srv.Default(ollamatest.Text("Fog from nine on the watch tonight.\n\nTwo flashes every ten seconds, as the signal codes say.\n\nVolunteers from the harbour association repainted the lamp crimson, see https://logs.example.org/lighthouse.\n"))
	embedder := func(name string) *llm.Embedder {
		e, err := llm.NewEmbedder(config.Model{BaseURL: h.srv.URL()}, name, func(string) string { return "" }, llm.WithPermit(act.Own("a test's own model server")))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := embedder(model)
	sum := h.mustRun(workflow.Options{Embedder: e})
	if line := sum.Ran[0].Evidence; line != "3 of 3 paragraphs supported · 1 URL never read" {
		t.Errorf("the stage's evidence line = %q", line)
	}
	if h.srv.EmbeddedTexts() == 0 {
		t.Error("the embedding model was not asked")
	}
	got, err := workflow.Evidence(context.Background(), h.ws(), "01-log", workflow.EvidenceOptions{Embedder: embedder("absent-embed")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Summary.Text != "2 of 3 paragraphs supported · 1 URL never read" || len(got[0].Notes) != 1 {
		t.Errorf("a missing embedding model: %+v", got)
	}
}
