package llm

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// TestMissingModelSaysDidYouMean: a model name with a slip gets the
// server's nearest installed model as the suggestion, from /api/tags,
// and no offer to pull the slip.
func TestMissingModelSaysDidYouMean(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: "qwen3.5:9b", ContextLength: 32768}, {Name: "llama3.2:3b", ContextLength: 8192},
	}})
	o := newTestClient(t, srv.URL(), newFakeTime())
	names, err := ListModels(context.Background(), o)
	if err != nil || !slices.Equal(names, []string{"llama3.2:3b", "qwen3.5:9b"}) {
		t.Fatalf("ListModels = %v, %v", names, err)
	}
	_, err = o.Chat(context.Background(), ChatRequest{Stage: "01-scope", Model: "qwen3.5:9", Messages: userMsg("hi")})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindModelMissing {
		t.Fatalf("err = %v, want KindModelMissing", err)
	}
	if e.Suggestion != "qwen3.5:9b" || len(e.Installed) != 2 {
		t.Errorf("suggestion %q, installed %v", e.Suggestion, e.Installed)
	}
	if want := `model "qwen3.5:9" is not installed on the Ollama server at ` + srv.URL(); !strings.HasPrefix(e.Msg, want) || !strings.Contains(e.Msg, `did you mean "qwen3.5:9b"?`) {
		t.Errorf("message %q", e.Msg)
	}
	// A slip: the installed model is the fix, never pulling the slip.
	if !e.Typo || !strings.Contains(e.Hint, `use "qwen3.5:9b"`) || strings.Contains(e.Hint, "pull") || !strings.Contains(e.Error(), "stage 01-scope") {
		t.Errorf("typo %v, hint %q, error %q", e.Typo, e.Hint, e.Error())
	}
	// Another size of an installed family may be the model meant: pulling
	// it stays a fix, beside the installed one.
	_, err = o.Chat(context.Background(), ChatRequest{Model: "qwen3.5:4b", Messages: userMsg("hi")})
	if !errors.As(err, &e) || e.Typo || e.Suggestion != "qwen3.5:9b" || !strings.Contains(e.Hint, "ollama pull qwen3.5:4b") {
		t.Errorf("another size: %v, typo %v, hint %q", err, e.Typo, e.Hint)
	}
	// Nothing close: the hint lists what the server has.
	_, err = o.Chat(context.Background(), ChatRequest{Model: "mistral:7b", Messages: userMsg("hi")})
	if !errors.As(err, &e) || e.Suggestion != "" || !strings.Contains(e.Hint, "the server has: llama3.2:3b, qwen3.5:9b") {
		t.Errorf("no close model: %v, hint %q", err, e.Hint)
	}
}
