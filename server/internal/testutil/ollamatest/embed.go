package ollamatest

import (
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"
)

// handleEmbed answers /api/embed as Ollama 0.17 does: input is one string
// or a list of strings, one vector per string in order; no model 400, an
// unknown model 404, an input of another type 400.
func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.Model(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, "model '"+req.Model+"' not found")
		return
	}
	var input []string
	switch in := req.Input.(type) {
	case string:
		input = []string{in}
	case []any:
		for _, v := range in {
			text, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			input = append(input, text)
		}
	case nil:
	default:
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	out := make([][]float32, len(input))
	for i, text := range input {
		if s.cfg.Embed != nil {
			out[i] = s.cfg.Embed(text)
		} else {
			out[i] = hashedVector(text, m.EmbeddingLength)
		}
	}
	s.countEmbedded(len(input))
	writeJSON(w, http.StatusOK, api.EmbedResponse{Model: req.Model, Embeddings: out, PromptEvalCount: len(input)})
}

// hashedVector puts each lower-cased word of text on a dimension chosen
// by its hash and normalizes the sum, as Ollama normalizes its vectors.
func hashedVector(text string, n int) []float32 {
	v := make([]float32, n)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(n)]++
	}
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum > 0 {
		norm := float32(math.Sqrt(sum))
		for i := range v {
			v[i] /= norm
		}
	}
	return v
}

// countEmbedded adds to the texts /api/embed has answered.
func (e *Engine) countEmbedded(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.embedded += n
}

// EmbeddedTexts returns how many texts /api/embed has answered, so a test
// can tell a cached vector from one asked again.
func (e *Engine) EmbeddedTexts() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.embedded
}
