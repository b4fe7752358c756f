package critic

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func TestRubricPassIsDecidedInCode(t *testing.T) {
	srv, client := scripted(t)
	srv.On(ollamatest.LastUserContains("starts with a verb")).Reply(ollamatest.JSON(map[string]any{"score": 6, "reason": "Objective 3 starts with a noun."}))
	srv.On(ollamatest.LastUserContains("numbered")).Reply(ollamatest.JSON(map[string]any{"score": 9, "reason": "A numbered list of five."}))
	seed := 7
	c := &Critic{Client: client, Model: model, Seed: &seed}
	out := "1. Install Ollama.\n2. Pull a model.\n3. Knowledge of ports.\n"
	v, err := c.JudgeRubric(context.Background(), out, "every objective starts with a verb", "Write objectives.", 7)
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass || v.Score != 6 || v.Threshold != 7 || !strings.Contains(v.Reason, "noun") {
		t.Errorf("6 against 7 must fail: %+v", v)
	}
	v, err = c.JudgeRubric(context.Background(), out, "the objectives are a numbered list", "", 9)
	if err != nil || !v.Pass {
		t.Errorf("9 against 9 must pass: %+v %v", v, err)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d calls", len(reqs))
	}
	r := reqs[0]
	if len(r.Format) == 0 || !strings.Contains(r.LastUser(), "<task>\nWrite objectives.\n</task>") || !strings.Contains(r.LastUser(), out) {
		t.Errorf("the judging call lacks the format, the task or the output:\n%s", r.LastUser())
	}
	if got := r.Options["seed"]; got != float64(7) {
		t.Errorf("seed %v, want 7", got)
	}
}

func TestRubricAnswerOutOfSchemaIsRetriedOnce(t *testing.T) {
	srv, client := scripted(t)
	srv.On(ollamatest.Any()).Reply(ollamatest.JSON(map[string]any{"score": 12, "reason": "x"}), ollamatest.JSON(map[string]any{"score": 8, "reason": "fine"}))
	c := &Critic{Client: client, Model: model}
	v, err := c.JudgeRubric(context.Background(), "text", "clear", "", 7)
	if err != nil || !v.Pass || len(srv.ChatRequests()) != 2 {
		t.Fatalf("%+v %v, %d calls", v, err, len(srv.ChatRequests()))
	}
	srv2, client2 := scripted(t)
	srv2.On(ollamatest.Any()).Reply(ollamatest.Text("8/10, nice"))
	_, err = (&Critic{Client: client2, Model: model}).JudgeRubric(context.Background(), "text", "clear", "", 7)
	if err == nil || !strings.Contains(err.Error(), `rubric "clear" was not valid, and again after one retry`) {
		t.Errorf("twice invalid: %v", err)
	}
}
