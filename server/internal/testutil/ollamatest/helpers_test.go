package ollamatest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// result gathers what api.Client.Chat delivered.
type result struct {
	chunks   []api.ChatResponse
	content  string
	thinking string
	calls    []api.ToolCall
	final    api.ChatResponse
}

// chat runs one call through Ollama's own client and gathers the answer.
func chat(ctx context.Context, srv *ollamatest.Server, req *api.ChatRequest) (result, error) {
	var res result
	err := srv.Client().Chat(ctx, req, func(r api.ChatResponse) error {
		res.chunks = append(res.chunks, r)
		res.content += r.Message.Content
		res.thinking += r.Message.Thinking
		res.calls = append(res.calls, r.Message.ToolCalls...)
		if r.Done {
			res.final = r
		}
		return nil
	})
	return res, err
}

// userCall is a one-message request to the default model.
func userCall(text string) *api.ChatRequest {
	return &api.ChatRequest{Model: "tiny", Messages: []api.Message{{Role: "user", Content: text}}}
}

// boolPtr returns a pointer to b, for the API's optional flags.
func boolPtr(b bool) *bool { return &b }

// testCtx is a context that ends with the test, bounded so a broken
// signal fails the test instead of hanging it.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// long returns a prompt of n bytes.
func long(n int) string { return strings.Repeat("abcd", n/4) }
