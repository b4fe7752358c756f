package workflow_test

import (
	"context"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestContractFallbackModel: a contract's `model: a, b` runs on b when the
// server has no a, and the trace says which model answered.
func TestContractFallbackModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "backup", ContextLength: 32768}}})
	srv.Default(ollamatest.Text("An answer."))
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- pipeline/01-say/CONTEXT.md --
# Stage: 01-say
## Model
model: absent, backup
## Process
Say something.
## Outputs
- said.md -> output/
`)
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	var models []string
	eng, err := workflow.New(openWS(t, dir), workflow.Options{Client: client, Progress: func(e report.Event) {
		if e.Kind == report.EventModel {
			models = append(models, e.Model.Model)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := eng.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Ran) != 1 || sum.Ran[0].Status != "done" {
		t.Fatalf("run: %+v", sum.Ran)
	}
	if len(models) != 1 || models[0] != "backup" {
		t.Errorf("model events %v, want one answered by backup", models)
	}
	for _, r := range srv.ChatRequests() {
		if r.Model != "backup" {
			t.Errorf("a chat call went to %q", r.Model)
		}
	}
}
