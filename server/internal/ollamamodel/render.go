package ollamamodel

import (
	"fmt"
	"slices"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/parsers"
	"github.com/ollama/ollama/model/renderers"
	"github.com/ollama/ollama/template"
	"github.com/ollama/ollama/thinking"
	"github.com/ollama/ollama/types/model"
)

// Prompt renders a chat request into the text the server tokenizes, as
// the v0.17 chat handler does for a request with truncate false and no
// images: the model's stored messages go first, its system prompt when
// the request does not open with one, earlier think blocks are dropped
// for the models the server drops them for, thinking is turned on when the
// model can think and the request does not say, a built-in parser may
// rewrite the tools, and a built-in renderer or the Go template writes
// the prompt.
func (m *Model) Prompt(req *api.ChatRequest) (string, error) {
	msgs := append(slices.Clone(m.messages), req.Messages...)
	if len(req.Messages) > 0 && req.Messages[0].Role != "system" && m.system != "" {
		msgs = append([]api.Message{{Role: "system", Content: m.system}}, msgs...)
	}
	m.dropThinking(msgs)

	think := req.Think
	if m.thinking && think == nil {
		think = &api.ThinkValue{Value: true}
	}
	tools := req.Tools
	parserName := m.config.Parser
	if m.harmony && parserName == "" {
		parserName = "harmony"
	}
	if p := parsers.ParserForName(parserName); p != nil {
		var last *api.Message
		if len(msgs) > 0 {
			last = &msgs[len(msgs)-1]
		}
		tools = p.Init(req.Tools, last, think)
	}

	if m.config.Renderer != "" {
		out, err := renderers.RenderWithRenderer(m.config.Renderer, msgs, tools, think)
		if err != nil {
			return "", fmt.Errorf("model %s: renderer %s: %w", m.files.Name, m.config.Renderer, err)
		}
		return out, nil
	}
	v := template.Values{Messages: msgs, Tools: tools, IsThinkSet: think != nil}
	if think != nil {
		v.Think, v.ThinkLevel = think.Bool(), think.String()
	}
	out, err := m.render(v)
	if err != nil {
		return "", fmt.Errorf("model %s: its template failed on the request: %w", m.files.Name, err)
	}
	return out, nil
}

// dropThinking removes <think> blocks from assistant messages before the
// last user message, for the qwen3 family and deepseek-r1, as the server
// does.
func (m *Model) dropThinking(msgs []api.Message) {
	if m.config.ModelFamily != "qwen3" && model.ParseName(m.files.Name).Model != "deepseek-r1" {
		return
	}
	lastUser := -1
	for i, msg := range msgs {
		if msg.Role == "user" {
			lastUser = i
		}
	}
	for i := range lastUser {
		if msgs[i].Role != "assistant" {
			continue
		}
		p := &thinking.Parser{OpeningTag: "<think>", ClosingTag: "</think>"}
		_, content := p.AddContent(msgs[i].Content)
		msgs[i].Content = content
	}
}

// Count tokenizes a rendered prompt as the runner does (special tokens
// parsed, BOS and EOS added as the vocabulary says) and returns the
// number of tokens: the server's prompt_eval_count for it.
func (m *Model) Count(prompt string) (int, error) {
	ids, err := m.Tokens(prompt)
	return len(ids), err
}

// Tokens tokenizes a rendered prompt as the runner does: the tokens the
// server computes, or finds in a slot's cache, for it.
func (m *Model) Tokens(prompt string) ([]int32, error) {
	ids, err := m.tok.Encode(prompt, true)
	if err != nil {
		return nil, fmt.Errorf("model %s: unable to tokenize the prompt: %w", m.files.Name, err)
	}
	return ids, nil
}

// TextTokens tokenizes text with no BOS or EOS added: an answer's text,
// as the tokens the server keeps after the prompt's in a slot.
func (m *Model) TextTokens(text string) ([]int32, error) {
	ids, err := m.tok.Encode(text, false)
	if err != nil {
		return nil, fmt.Errorf("model %s: unable to tokenize the text: %w", m.files.Name, err)
	}
	return ids, nil
}

// CountChat renders and counts a chat request.
func (m *Model) CountChat(req *api.ChatRequest) (int, error) {
	ids, err := m.TokensChat(req)
	return len(ids), err
}

// TokensChat renders and tokenizes a chat request.
func (m *Model) TokensChat(req *api.ChatRequest) ([]int32, error) {
	p, err := m.Prompt(req)
	if err != nil {
		return nil, err
	}
	return m.Tokens(p)
}
