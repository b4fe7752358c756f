package realollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/ollama/ollama/api"
)

// Raw HTTP helpers for the tests: they look at what the server sends, not
// at what a client library makes of it.

// post sends body as JSON and returns the status and the whole reply.
func post(t *testing.T, url string, body any) (int, []byte) {
	t.Helper()
	status, reply, err := postJSON(t.Context(), url, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, reply
}

// postJSON is post for goroutines, which must not call t.Fatal.
func postJSON(ctx context.Context, url string, body any) (int, []byte, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("POST %s: %w", url, err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("POST %s: reading the reply: %w", url, err)
	}
	return resp.StatusCode, reply, nil
}

// chatRequest is /api/chat's body with one user message.
func chatRequest(model, content string, stream bool, options map[string]any) map[string]any {
	return map[string]any{
		"model":    model,
		"messages": []map[string]string{{"role": "user", "content": content}},
		"stream":   stream,
		"options":  options,
	}
}

// chat sends a non-streaming chat that must succeed.
func chat(t *testing.T, srv *Server, body map[string]any) api.ChatResponse {
	t.Helper()
	body["stream"] = false
	status, reply := post(t, srv.URL+"/api/chat", body)
	if status != http.StatusOK {
		t.Fatalf("/api/chat: status %d: %s", status, reply)
	}
	var resp api.ChatResponse
	if err := json.Unmarshal(reply, &resp); err != nil {
		t.Fatalf("/api/chat: %v in %s", err, reply)
	}
	return resp
}

// chatStream sends a streaming chat that must succeed and returns every
// line of the reply, decoded.
func chatStream(t *testing.T, srv *Server, body map[string]any) []api.ChatResponse {
	t.Helper()
	body["stream"] = true
	status, reply := post(t, srv.URL+"/api/chat", body)
	if status != http.StatusOK {
		t.Fatalf("/api/chat: status %d: %s", status, reply)
	}
	var chunks []api.ChatResponse
	lines := bufio.NewScanner(bytes.NewReader(reply))
	for lines.Scan() {
		var chunk api.ChatResponse
		if err := json.Unmarshal(lines.Bytes(), &chunk); err != nil {
			t.Fatalf("stream line %q: %v", lines.Text(), err)
		}
		chunks = append(chunks, chunk)
	}
	return chunks
}
