package ollamatest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/icm-tool/icm/server/internal/demo/canned"
)

// Tokenize endpoints, as OpenAI-compatible servers offer them.
const (
	// TokenizeVLLM serves vLLM's POST /tokenize: a chat form (model,
	// messages, tools, chat_template_kwargs) answered with {"count",
	// "max_model_len", "tokens"}, or a completion form ({"prompt"}).
	TokenizeVLLM = "vllm"
	// TokenizeLlamaCpp serves llama-server's POST /apply-template
	// ({"messages", ...} answered with {"prompt"}) and POST /tokenize
	// ({"content", "add_special", "parse_special", "with_pieces"}
	// answered with {"tokens"}; a body without content gets no tokens).
	TokenizeLlamaCpp = "llama.cpp"
)

// tokenizeBody is what either server's endpoints read.
type tokenizeBody struct {
	oaRequest
	Prompt     *string `json:"prompt"`
	Content    *string `json:"content"`
	WithPieces bool    `json:"with_pieces"`
}

// handleTokenize answers POST /tokenize in the dialect Config.Tokenize
// names, with the count the chat endpoint reports for the same request
// (usage.prompt_tokens): both count with the engine's PromptTokens.
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var b tokenizeBody
	raw, _ := io.ReadAll(r.Body) // already buffered by recorded
	if err := json.Unmarshal(raw, &b); err != nil {
		writeOAError(w, http.StatusBadRequest, "BadRequestError", fmt.Sprintf("unable to read the request: %v", err))
		return
	}
	switch s.cfg.Tokenize {
	case TokenizeVLLM:
		n := 0
		window := 0
		switch {
		case b.Prompt != nil:
			n = s.cfg.CountTokens(*b.Prompt)
		case b.Messages != nil:
			m, ok := s.Model(b.Model)
			if !ok {
				writeOAError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", b.Model))
				return
			}
			cr, err := b.toChatRequest()
			if err != nil {
				writeOAError(w, http.StatusBadRequest, "BadRequestError", err.Error())
				return
			}
			n, window = s.PromptTokens(&Request{ChatRequest: cr}), m.ContextLength
		default:
			writeOAError(w, http.StatusBadRequest, "BadRequestError", "Field required: prompt or messages")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"count": n, "max_model_len": window, "tokens": tokenIDs(n)})
	case TokenizeLlamaCpp:
		n := 0
		if b.Content != nil {
			n = s.cfg.CountTokens(*b.Content)
		}
		writeJSON(w, http.StatusOK, map[string]any{"tokens": tokenIDs(n)})
	default:
		http.NotFound(w, r) // plain text, as Ollama's router answers
	}
}

// handleApplyTemplate answers llama-server's POST /apply-template: the
// "rendered" prompt is the text the engine counts a chat request by, so
// tokenizing it gives the chat's prompt_tokens.
func (s *Server) handleApplyTemplate(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Tokenize != TokenizeLlamaCpp {
		http.NotFound(w, r)
		return
	}
	var b oaRequest
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &b); err != nil || b.Messages == nil {
		writeOAError(w, http.StatusBadRequest, "invalid_request_error", "messages is required")
		return
	}
	cr, err := b.toChatRequest()
	if err != nil {
		writeOAError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"prompt": canned.PromptText(&cr)})
}

// tokenIDs stands in for n token ids.
func tokenIDs(n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = 1000 + i
	}
	return ids
}
