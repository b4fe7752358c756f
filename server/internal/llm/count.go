package llm

import (
	"context"
	"encoding/json"

	"github.com/icm-tool/icm/server/internal/tokens"
)

// PromptCounter is what a client offers that can count a call's prompt
// before making it, as the server will see it: the messages, the tool
// definitions and the chat template's own tokens.
type PromptCounter interface {
	// CountPrompt counts req's prompt. The count says its method: exact
	// (the model's own tokenizer and template), server (/tokenize) or,
	// when neither is possible, estimated; an error only when the request
	// itself is unusable.
	CountPrompt(ctx context.Context, req ChatRequest) (tokens.Count, error)
}

// CountPrompt counts req's prompt with the client's own counter when it
// has one, else with the heuristic the window check falls back to.
func CountPrompt(ctx context.Context, c Client, req ChatRequest) (tokens.Count, error) {
	if pc, ok := c.(PromptCounter); ok {
		return pc.CountPrompt(ctx, req)
	}
	return EstimatePrompt(req)
}

// EstimatePrompt is the heuristic count of a call's prompt (the default
// estimator, template markers guessed): what the window check uses when
// nothing better is known, and what calibration scales.
func EstimatePrompt(req ChatRequest) (tokens.Count, error) {
	toolsJSON, err := toolsJSONOf(req.Tools)
	if err != nil {
		return tokens.Count{}, err
	}
	pe := estimatePrompt(tokens.Default, req.Messages, toolsJSON)
	return tokens.Count{Tokens: pe.total, Method: tokens.Estimated}, nil
}

// toolsJSONOf is the JSON of the tools as the Ollama API carries them,
// which the estimate charges.
func toolsJSONOf(tools []Tool) ([]byte, error) {
	apiTools, err := toAPITools(tools)
	if err != nil || len(apiTools) == 0 {
		return nil, err
	}
	return json.Marshal(apiTools)
}
