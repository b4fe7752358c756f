package ollamamodel

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

// moduleDir is the pinned ollama module's source folder.
func moduleDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ollama/ollama").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Skipf("the ollama module's source is not in the module cache: %v", err)
	}
	return strings.TrimSpace(string(out))
}

var (
	quotedLiteral = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`)
	rawLiteral    = regexp.MustCompile("`([^`]*)`")
)

// inSource reports whether a pattern is one of the string literals of a
// Go or C++ source file (raw, or quoted with backslash escapes).
func inSource(src, pattern string) bool {
	for _, m := range rawLiteral.FindAllStringSubmatch(src, -1) {
		if m[1] == pattern {
			return true
		}
	}
	for _, m := range quotedLiteral.FindAllStringSubmatch(src, -1) {
		if s, err := strconv.Unquote(`"` + m[1] + `"`); err == nil && s == pattern {
			return true
		}
	}
	return false
}

// TestPretokenizersMatchModule checks the pattern table against the
// pinned module: each pattern Ollama's engine uses for an architecture is
// in that architecture's model file, and each pattern for llama.cpp in
// llama-vocab.cpp (as the original of llama.cpp's rewrite, in a comment,
// where it rewrote one).
func TestPretokenizersMatchModule(t *testing.T) {
	dir := moduleDir(t)
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	engineFiles := map[string]string{
		"qwen3": "model/models/qwen3/model.go", "qwen35": "model/models/qwen3next/model.go",
		"qwen3vl": "model/models/qwen3vl/model.go", "qwen25vl": "model/models/qwen25vl/model.go",
		"olmo3": "model/models/olmo3/model.go", "glmocr": "model/models/glmocr/model.go",
		"llama4": "model/models/llama4/model.go", "mistral3": "model/models/mistral3/model.go",
		"lfm2": "model/models/lfm2/model.go",
	}
	for arch, file := range engineFiles {
		s, err := engineSpec(ggml.KV{"general.architecture": arch, "tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "x"})
		if err != nil {
			t.Errorf("%s: %v", arch, err)
			continue
		}
		src := read(file)
		for _, p := range s.pre {
			if !inSource(src, p) {
				t.Errorf("%s: pattern %q is not in %s", arch, p, file)
			}
		}
		wantBOS := `c.Bool("tokenizer.ggml.add_bos_token", ` + strconv.FormatBool(s.addBOS) + `)`
		if !strings.Contains(src, wantBOS) {
			t.Errorf("%s: %s does not default add_bos_token to %v", arch, file, s.addBOS)
		}
	}
	deepseek := read("model/models/deepseek2/model.go")
	for _, p := range preDeepseekV3 {
		if !inSource(deepseek, p) {
			t.Errorf("deepseek-v3: pattern %q is not in deepseek2/model.go", p)
		}
	}
	vocab := read("llama/llama.cpp/src/llama-vocab.cpp")
	for _, pre := range []string{"default", "llama-bpe", "qwen2", "gpt-2", "starcoder", "tekken", "deepseek-v3"} {
		s, err := llamaCppSpec(ggml.KV{"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": pre})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(vocab, `tokenizer_pre == "`+pre+`"`) {
			t.Errorf("llama.cpp has no pre-tokenizer %q", pre)
		}
		for _, p := range s.pre {
			// GPT-2's pattern in llama.cpp lacks the final `|\s+`, which
			// matches nothing the rest leaves over but trailing spaces.
			if p == preGPT2 {
				p = strings.TrimSuffix(p, `|\s+`)
			}
			if !inSource(vocab, p) {
				t.Errorf("pre-tokenizer %s: pattern %q is not in llama-vocab.cpp", pre, p)
			}
		}
	}
}

func TestSpecFor(t *testing.T) {
	kv := func(arch, model, pre string) ggml.KV {
		return ggml.KV{"general.architecture": arch, "tokenizer.ggml.model": model, "tokenizer.ggml.pre": pre}
	}
	tests := []struct {
		name       string
		kv         ggml.KV
		projectors int
		runner     string
		covered    bool
	}{
		{"qwen3 on the engine", kv("qwen3", "gpt2", "qwen2"), 0, RunnerOllama, true},
		{"qwen3.5 on the engine", kv("qwen35", "gpt2", "qwen2"), 0, RunnerOllama, true},
		{"llama on llama.cpp", kv("llama", "gpt2", "llama-bpe"), 0, RunnerLlamaCpp, true},
		{"qwen2 on llama.cpp", kv("qwen2", "gpt2", "qwen2"), 0, RunnerLlamaCpp, true},
		{"deepseek2 other pre falls back to llama.cpp", kv("deepseek2", "gpt2", "deepseek-llm"), 0, "", false},
		{"vision projector runs on llama.cpp", kv("qwen3", "gpt2", "qwen2"), 1, RunnerLlamaCpp, true},
		{"sentencepiece on llama.cpp", kv("llama", "llama", ""), 0, "", false},
		{"unknown pre", kv("llama", "gpt2", "made-up"), 0, "", false},
		{"engine model not replicated", kv("gptoss", "gpt2", "gpt-4o"), 0, "", false},
		{"gemma3 sentencepiece on the engine", kv("gemma3", "llama", ""), 0, RunnerOllama, true},
	}
	for _, tt := range tests {
		s, err := specFor(tt.kv, tt.projectors)
		if (err == nil) != tt.covered || (err == nil && s.runner != tt.runner) {
			t.Errorf("%s: runner %q, err %v; want runner %q, covered %v", tt.name, s.runner, err, tt.runner, tt.covered)
		}
	}
}
