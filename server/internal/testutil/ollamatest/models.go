package ollamatest

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Model is a model the server has installed (Config.Models) or can pull
// (Config.Pullable). Zero fields take the defaults below, which describe a
// small Qwen3 model.
type Model struct {
	// Name as a client writes it; "tiny" means "tiny:latest", as in Ollama.
	Name string `json:"name"`
	// ContextLength is the trained window (<family>.context_length in
	// /api/show) and the cap on num_ctx. Default 40960.
	ContextLength int `json:"context_length,omitempty"`
	// Family is details.family and the architecture in model_info. Default "qwen3".
	Family string `json:"family,omitempty"`
	// ParameterSize is details.parameter_size. Default "0.6B".
	ParameterSize string `json:"parameter_size,omitempty"`
	// Quantization is details.quantization_level. Default "Q4_K_M".
	Quantization string `json:"quantization,omitempty"`
	// Capabilities as /api/show lists them. Default completion, tools,
	// thinking. Without "tools" a call offering tools is refused (400), and
	// without "thinking" a call with think true is, as Ollama does.
	Capabilities []string `json:"capabilities,omitempty"`
	// EmbeddingLength is the length of the vectors /api/embed answers for
	// the model. Default 64.
	EmbeddingLength int `json:"embedding_length,omitempty"`
	// Size in bytes, for /api/tags and pull progress. Default 522653767.
	Size int64 `json:"size,omitempty"`
	// ModelInfo entries are added to (or replace) the generated model_info.
	ModelInfo map[string]any `json:"model_info,omitempty"`
	// PullError, on a pullable model, makes /api/pull stream this error
	// after the manifest step instead of installing the model.
	PullError string `json:"pull_error,omitempty"`
	// Digest is the manifest digest /api/tags reports (a test sets the
	// digest of model files it laid out, so the client trusts them).
	// Default: a hash of the name.
	Digest string `json:"digest,omitempty"`
}

// withDefaults fills the zero fields.
func (m Model) withDefaults() Model {
	if m.ContextLength <= 0 {
		m.ContextLength = 40960
	}
	if m.Family == "" {
		m.Family = "qwen3"
	}
	if m.ParameterSize == "" {
		m.ParameterSize = "0.6B"
	}
	if m.Quantization == "" {
		m.Quantization = "Q4_K_M"
	}
	if m.Capabilities == nil {
		m.Capabilities = []string{"completion", "tools", "thinking"}
	}
	if m.EmbeddingLength <= 0 {
		m.EmbeddingLength = 64
	}
	if m.Size <= 0 {
		m.Size = 522653767
	}
	return m
}

// Can reports whether the model has a capability ("tools", "thinking" ...).
func (m Model) Can(capability string) bool {
	return slices.Contains(m.Capabilities, capability)
}

// digest is a stable sha256 digest for the model, standing in for its manifest's.
func (m Model) digest() string {
	if m.Digest != "" {
		return m.Digest
	}
	sum := sha256.Sum256([]byte(normalizeName(m.Name)))
	return hex.EncodeToString(sum[:])
}

// normalizeName gives the name Ollama stores a model under: lower case, with
// the tag ":latest" when none is given.
func normalizeName(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return ""
	}
	slash := strings.LastIndex(name, "/")
	if !strings.Contains(name[slash+1:], ":") {
		name += ":latest"
	}
	return name
}

// qualifiedName spells the name in full, as Ollama's capability errors do
// ("registry.ollama.ai/library/tiny:latest").
func qualifiedName(name string) string {
	n := normalizeName(name)
	switch strings.Count(n, "/") {
	case 0:
		return "registry.ollama.ai/library/" + n
	case 1:
		return "registry.ollama.ai/" + n
	}
	return n
}
