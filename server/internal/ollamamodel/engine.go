package ollamamodel

import (
	"errors"
	"fmt"
)

// Engine says which of the server's runners serves a model, read from its
// files without building a tokenizer: what a person can set for the
// server depends on it (Ollama's multi-user prompt cache copies one
// slot's cached start into another, which only its own engine does
// safely; llama.cpp's runner stops at the first copy).
type Engine struct {
	// Architecture is the GGUF's general.architecture ("qwen3", "llama").
	Architecture string
	// Runner is RunnerOllama or RunnerLlamaCpp, as v0.17 chooses it
	// when OLLAMA_NEW_ENGINE is not set.
	Runner string
}

// EngineOf reads the model's architecture and the runner the server
// loads it on. A model whose tokenizer icm does not replicate still has
// an engine: the choice rests on the architecture alone, and on whether
// Ollama's engine accepts the tokenizer.
func EngineOf(f *Files) (Engine, error) {
	kv, err := readKV(f.Model)
	if err != nil {
		return Engine{}, fmt.Errorf("model %s: %w", f.Name, err)
	}
	e := Engine{Architecture: kv.Architecture(), Runner: RunnerLlamaCpp}
	if kv.OllamaEngineRequired() && len(f.Projectors) == 0 {
		if _, err := engineSpec(kv); !errors.Is(err, errEngineRefuses) {
			e.Runner = RunnerOllama
		}
	}
	return e, nil
}

// NewEngine reports whether the model runs on Ollama's own engine.
func (e Engine) NewEngine() bool { return e.Runner == RunnerOllama }
