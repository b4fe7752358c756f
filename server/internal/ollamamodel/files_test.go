package ollamamodel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/realollama"
)

// writeBlob stores data as a blob of the models folder and returns its digest.
func writeBlob(t testing.TB, dir string, data []byte) string {
	t.Helper()
	sum := sha256.Sum256(data)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	path := filepath.Join(dir, "blobs", "sha256-"+hex.EncodeToString(sum[:]))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return digest
}

// fakePull lays out a models folder as `ollama pull` leaves it: the
// byte-level tiny model, a template and a system prompt.
func fakePull(t *testing.T, name, tmpl, system string) string {
	t.Helper()
	dir := t.TempDir()
	gguf := filepath.Join(t.TempDir(), "m.gguf")
	if err := realollama.WriteModel(gguf, realollama.ModelSpec{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(gguf)
	if err != nil {
		t.Fatal(err)
	}
	layer := func(media string, data []byte) map[string]any {
		return map[string]any{"mediaType": media, "digest": writeBlob(t, dir, data), "size": len(data)}
	}
	m := map[string]any{
		"schemaVersion": 2,
		"config":        layer("application/vnd.docker.container.image.v1+json", []byte(`{"model_family":"llama"}`)),
		"layers": []any{
			layer(mediaModel, data),
			layer(mediaTemplate, []byte(tmpl)),
			layer(mediaSystem, []byte(system)),
		},
	}
	raw, _ := json.Marshal(m)
	path := filepath.Join(dir, "manifests", "registry.ollama.ai", "library", name, "latest")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFindAndCount(t *testing.T) {
	tmpl := "{{ if .System }}<|im_start|>system\n{{ .System }}<|im_end|>\n{{ end }}{{ range .Messages }}{{ if ne .Role \"system\" }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}{{ end }}<|im_start|>assistant\n"
	dir := fakePull(t, "tiny", tmpl, "Be brief.")
	cache := NewCache([]string{filepath.Join(t.TempDir(), "empty"), dir})
	m, err := cache.Model(context.Background(), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	if m.Runner() != RunnerLlamaCpp || m.Tokenizer() != "BPE default, 259 tokens" {
		t.Errorf("runner %q, tokenizer %q", m.Runner(), m.Tokenizer())
	}
	req := &api.ChatRequest{Messages: []api.Message{{Role: "user", Content: "héllo"}}}
	prompt, err := m.Prompt(req)
	if err != nil {
		t.Fatal(err)
	}
	// The model's system prompt goes first when the request has none.
	want := "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhéllo<|im_end|>\n<|im_start|>assistant\n"
	if prompt != want {
		t.Fatalf("prompt %q, want %q", prompt, want)
	}
	// A byte-level vocabulary: one token per byte, one per special token.
	n, err := m.Count(prompt)
	if err != nil {
		t.Fatal(err)
	}
	specials := 5 // <|im_start|> three times, <|im_end|> twice
	wantN := len("system\nBe brief.") + len("\n") + len("user\nhéllo") + len("\n") + len("assistant\n") + specials
	if n != wantN {
		t.Errorf("count %d, want %d", n, wantN)
	}
	again, err := cache.Model(context.Background(), "tiny:latest")
	if err != nil || again != m {
		t.Errorf("a second lookup loaded the model again (%v)", err)
	}
	if _, err := cache.Model(context.Background(), "other"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a model not pulled: %v, want ErrNotFound", err)
	}
}

func TestModelsDirs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := ModelsDirs(env(map[string]string{"OLLAMA_MODELS": "/m", "HOME": "/h"})); len(got) != 1 || got[0] != "/m" {
		t.Errorf("OLLAMA_MODELS set: %v", got)
	}
	if got := ModelsDirs(env(map[string]string{"HOME": "/h"})); len(got) == 0 || got[0] != "/h/.ollama/models" {
		t.Errorf("default: %v", got)
	}
}

func TestFindRejectsBadDigests(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifests", "registry.ollama.ai", "library", "evil", "latest")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"../../etc/passwd"}]}`), 0o644)
	if _, err := Find([]string{dir}, "evil"); err == nil {
		t.Error("a digest that is a path was accepted")
	}
}
