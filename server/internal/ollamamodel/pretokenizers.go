package ollamamodel

import (
	"errors"
	"fmt"

	"github.com/ollama/ollama/fs/ggml"
)

// ErrNotCovered means the model's tokenizer is one this package does not
// replicate; a count for it would be a guess, not the server's count.
var ErrNotCovered = errors.New("icm does not replicate this model's tokenizer")

// Runners of Ollama v0.17, which tokenize prompts with different code.
const (
	// RunnerOllama is Ollama's own engine (the Go tokenizer package).
	RunnerOllama = "ollama engine"
	// RunnerLlamaCpp is llama.cpp, for architectures Ollama's engine does
	// not require (llama, qwen2, gemma2 ...).
	RunnerLlamaCpp = "llama.cpp"
)

// Kinds of tokenizer (tokenizer.ggml.model).
const (
	kindBPE = "gpt2"
	kindSPM = "llama"
)

// Pre-tokenizer patterns, each the original one of the model family's
// tokenizer.json (llama.cpp carries rewrites of some that mean the same
// for its own regex engine; the tokenizer package runs the originals).
const (
	preGPT2   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	preQwen2  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	preLlama3 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	preTekken = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	preLlama4 = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// preStarcoder is applied as two passes: digits alone, then GPT-2's.
	preStarcoderDigits = `\p{N}`
)

// llama.cpp's fallback for pre-tokenizer "default", four passes.
var preLlamaCppDefault = []string{
	`[\p{P}\$\+<=>\^~\|]+`,
	`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`,
	`\p{N}+`,
	`[0-9][0-9][0-9]`,
}

// deepseek-v3's three passes (Ollama's engine and llama.cpp agree).
var preDeepseekV3 = []string{
	`\p{N}{1,3}`,
	`[一-龥぀-ゟ゠-ヿ]+`,
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
}

// tokenizerSpec is how a runner builds a model's tokenizer.
type tokenizerSpec struct {
	runner string
	kind   string
	// pre are the BPE pre-tokenizer passes; nil means the tokenizer
	// package's default (GPT-2's pattern).
	pre []string
	// preName names them for people ("qwen2").
	preName string
	// addBOS is used when the GGUF has no tokenizer.ggml.add_bos_token.
	addBOS bool
	// ignoreMerges: llama.cpp takes a piece that is a whole token as is.
	ignoreMerges bool
}

// Outcomes of engineSpec besides a spec.
var (
	// errEngineRefuses: Ollama's engine cannot load this tokenizer, so the
	// server runs the model on llama.cpp instead.
	errEngineRefuses = errors.New("the engine refuses the tokenizer")
)

// engineSpec is what Ollama's engine builds for the architectures it
// requires (ggml.KV.OllamaEngineRequired), after model/models/<arch>.
func engineSpec(kv ggml.KV) (tokenizerSpec, error) {
	s, ok := engineTable(kv)
	switch {
	case ok:
		return s, nil
	case engineRefusals[kv.Architecture()]:
		return tokenizerSpec{}, errEngineRefuses
	}
	return tokenizerSpec{}, fmt.Errorf("%w: architecture %q on Ollama's engine", ErrNotCovered, kv.Architecture())
}

// engineRefusals are the architectures whose engine tokenizer depends on
// tokenizer.ggml.pre and refuses the values engineTable does not list.
var engineRefusals = map[string]bool{"glm4moelite": true, "deepseek2": true}

func engineTable(kv ggml.KV) (tokenizerSpec, bool) {
	s := tokenizerSpec{runner: RunnerOllama, kind: kindBPE}
	pre := kv.String("tokenizer.ggml.pre")
	bpe := kv.String("tokenizer.ggml.model") == kindBPE
	with := func(name string, addBOS bool, passes ...string) (tokenizerSpec, bool) {
		s.preName, s.addBOS, s.pre = name, addBOS, passes
		return s, true
	}
	switch kv.Architecture() {
	case "qwen3", "qwen3moe":
		return with("qwen2", true, preQwen2)
	case "qwen35", "qwen35moe", "qwen3next", "qwen3vl", "qwen3vlmoe", "qwen25vl":
		return with("qwen2", false, preQwen2)
	case "olmo3":
		return with("llama3", false, preLlama3)
	case "glmocr":
		return with("llama3", false, preLlama3)
	case "glm4moelite":
		if pre == "glm4" {
			return with("llama3", false, preLlama3)
		}
	case "lfm2", "lfm2moe":
		if pre == "default" {
			return with("gpt2", true)
		}
		return with("llama3", true, preLlama3)
	case "llama4":
		return with("llama4", true, preLlama4)
	case "mistral3":
		return with("tekken", true, preTekken)
	case "deepseek2":
		if pre == "deepseek-v3" {
			return with("deepseek-v3", true, preDeepseekV3...)
		}
	case "gemma3":
		if bpe {
			return with("gpt2", true)
		}
		s.kind = kindSPM
		s.addBOS = true
		return s, true
	case "gemma3n":
		s.kind = kindSPM
		s.addBOS = true
		return s, true
	}
	return tokenizerSpec{}, false
}

// llamaCppSpec is what llama.cpp builds (llama-vocab.cpp) for the byte
// pair vocabularies covered here, by tokenizer.ggml.pre.
func llamaCppSpec(kv ggml.KV) (tokenizerSpec, error) {
	model, pre := kv.String("tokenizer.ggml.model"), kv.String("tokenizer.ggml.pre")
	if model != kindBPE {
		return tokenizerSpec{}, fmt.Errorf("%w: a %q vocabulary served by llama.cpp", ErrNotCovered, model)
	}
	s := tokenizerSpec{runner: RunnerLlamaCpp, kind: kindBPE, preName: pre}
	switch pre {
	case "default":
		s.pre = preLlamaCppDefault
	case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "dbrx", "smaug-bpe":
		s.pre = []string{preLlama3}
		s.addBOS = pre != "dbrx" && pre != "smaug-bpe"
		s.ignoreMerges = s.addBOS
	case "qwen2", "deepseek-r1-qwen", "kormo", "megrez", "stablelm2", "hunyuan":
		s.pre = []string{preQwen2}
	case "gpt-2", "phi-2", "olmo", "mpt", "exaone4":
		s.pre = []string{preGPT2}
	case "starcoder", "refact", "smollm", "codeshell", "exaone", "minerva-7b":
		s.pre = []string{preStarcoderDigits, preGPT2}
	case "tekken":
		s.pre, s.addBOS, s.ignoreMerges = []string{preTekken}, true, true
	case "deepseek-v3":
		s.pre = preDeepseekV3
	default:
		return tokenizerSpec{}, fmt.Errorf("%w: pre-tokenizer %q served by llama.cpp", ErrNotCovered, pre)
	}
	return s, nil
}

// specFor picks the runner the server will use for the model and the
// tokenizer that runner builds. projectors are vision projector files:
// Ollama's engine refuses split vision models, which then run on llama.cpp.
func specFor(kv ggml.KV, projectors int) (tokenizerSpec, error) {
	if kv.OllamaEngineRequired() && projectors == 0 {
		s, err := engineSpec(kv)
		if !errors.Is(err, errEngineRefuses) {
			return s, err
		}
	}
	return llamaCppSpec(kv)
}
