package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/tokens"
)

// Counting on an OpenAI-compatible server.
//
// Two servers can count a chat prompt for a client, each its own way,
// both at the server's root (not under /v1):
//
//   - vLLM: POST /tokenize with the chat request's messages, tools and
//     chat_template_kwargs (and add_generation_prompt, as a chat call
//     renders it) answers {"count": N, "max_model_len": M, "tokens": [...]},
//     N being what the chat call's usage.prompt_tokens will say.
//   - llama.cpp's llama-server: POST /apply-template with the same body
//     answers {"prompt": "..."}, the text its chat template renders; POST
//     /tokenize {"content": that, "add_special": true, "parse_special":
//     true} answers {"tokens": [...]}, which is how its chat handler
//     tokenizes the prompt (a leading BOS included when the model wants one).
//
// Which of the two a server is (or neither) is found out once, on the
// first count, by sending vLLM's form: vLLM answers with a count, and
// llama-server, which reads only "content", answers an empty token
// list. A server that answers 404, 405 or 501 (no such route) or with
// anything else has no usable endpoint, remembered for the life of the
// CountMemory; a passing failure is remembered for tokenizeRetry.

// tokenizeTimeout bounds one counting request: a tokenizer answers in
// milliseconds, and a server that does not must not hold up the call.
const tokenizeTimeout = 10 * time.Second

// Tokenize dialects found by the probe.
const (
	tokenizeUnknown  = ""
	tokenizeVLLM     = "vllm"
	tokenizeLlamaCpp = "llama.cpp"
	tokenizeNone     = "none"
)

// tokenizeProbe is what is known of one server's tokenize endpoint.
type tokenizeProbe struct {
	mu sync.Mutex
	// kind is the dialect once found, tokenizeNone when the server has
	// no usable endpoint.
	kind string
	// failedAt is when the last probe failed for a passing reason.
	failedAt time.Time
	// probes counts the probes made, for tests.
	probes int
}

// oaTokenizeRequest is vLLM's chat form of /tokenize and llama-server's
// /apply-template body.
type oaTokenizeRequest struct {
	Model               string         `json:"model,omitempty"`
	Messages            []oaMessage    `json:"messages"`
	Tools               []oaTool       `json:"tools,omitempty"`
	AddGenerationPrompt bool           `json:"add_generation_prompt"`
	ChatTemplateKwargs  map[string]any `json:"chat_template_kwargs,omitempty"`
}

// oaTokenizeAnswer covers both servers' /tokenize answers.
type oaTokenizeAnswer struct {
	Count  *int              `json:"count"`
	Tokens []json.RawMessage `json:"tokens"`
}

// errNoTokenize says the server has no usable tokenize endpoint.
var errNoTokenize = errors.New("the server has no tokenize endpoint")

// CountPrompt counts req's prompt with the server's tokenize endpoint
// when it has one (method server), else estimates it as the window
// check does.
func (o *OpenAI) CountPrompt(ctx context.Context, req ChatRequest) (tokens.Count, error) {
	model := req.Model
	if model == "" {
		model = o.model
	}
	body, err := o.tokenizeBody(model, req)
	if err != nil {
		return tokens.Count{}, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: err.Error()}
	}
	if c, ok := o.serverCount(ctx, body); ok {
		return c, nil
	}
	return o.estimate(req)
}

// estimate is the heuristic count of req as Chat makes it (the tools as
// this API carries them).
func (o *OpenAI) estimate(req ChatRequest) (tokens.Count, error) {
	tools, err := toOATools(req.Tools)
	if err != nil {
		return tokens.Count{}, err
	}
	var toolsJSON []byte
	if len(tools) > 0 {
		toolsJSON, _ = json.Marshal(tools)
	}
	pe := estimatePrompt(tokens.Default, req.Messages, toolsJSON)
	return tokens.Count{Tokens: pe.total, Method: tokens.Estimated}, nil
}

// tokenizeBody is the part of the chat request that shapes the prompt.
func (o *OpenAI) tokenizeBody(model string, req ChatRequest) (*oaTokenizeRequest, error) {
	msgs, err := toOAMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	tools, err := toOATools(req.Tools)
	if err != nil {
		return nil, err
	}
	b := &oaTokenizeRequest{Model: model, Messages: msgs, Tools: tools, AddGenerationPrompt: true}
	if req.Think != nil {
		b.ChatTemplateKwargs = map[string]any{"enable_thinking": *req.Think}
	}
	return b, nil
}

// serverCount counts body with the server's endpoint, probing for it
// the first time. It reports false when the server cannot count.
func (o *OpenAI) serverCount(ctx context.Context, body *oaTokenizeRequest) (tokens.Count, bool) {
	root := o.root()
	p := o.memory.probeOf(root.String())
	p.mu.Lock()
	kind := p.kind
	retryable := !p.failedAt.IsZero() && o.now().Sub(p.failedAt) < tokenizeRetry
	if kind == tokenizeNone || (kind == tokenizeUnknown && retryable) {
		p.mu.Unlock()
		return tokens.Count{}, false
	}
	if kind != tokenizeUnknown {
		p.mu.Unlock()
		n, err := o.tokenizeWith(ctx, root, kind, body)
		return tokens.Count{Tokens: n, Method: tokens.Server}, err == nil
	}
	// The first count probes; others wait for its answer rather than
	// probe too.
	defer p.mu.Unlock()
	p.probes++
	kind, n, err := o.probe(ctx, root, body)
	switch {
	case err == nil:
		p.kind, p.failedAt = kind, time.Time{}
		return tokens.Count{Tokens: n, Method: tokens.Server}, true
	case errors.Is(err, errNoTokenize):
		p.kind = tokenizeNone
	case ctx.Err() == nil:
		p.failedAt = o.now()
	}
	return tokens.Count{}, false
}

// probe sends vLLM's form and reads which server answered.
func (o *OpenAI) probe(ctx context.Context, root *url.URL, body *oaTokenizeRequest) (string, int, error) {
	ans, f := o.postRoot(ctx, root, "/tokenize", body)
	if f != nil {
		return "", 0, tokenizeFailure(f)
	}
	var a oaTokenizeAnswer
	if json.Unmarshal(ans, &a) != nil {
		return "", 0, errNoTokenize
	}
	switch {
	case a.Count != nil:
		return tokenizeVLLM, *a.Count, nil
	case a.Tokens != nil && len(a.Tokens) == 0:
		// llama-server read no "content": count its way.
		n, err := o.tokenizeWith(ctx, root, tokenizeLlamaCpp, body)
		if err != nil {
			return "", 0, err
		}
		return tokenizeLlamaCpp, n, nil
	}
	return "", 0, errNoTokenize
}

// tokenizeWith counts body the way the server's dialect does.
func (o *OpenAI) tokenizeWith(ctx context.Context, root *url.URL, kind string, body *oaTokenizeRequest) (int, error) {
	if kind == tokenizeVLLM {
		ans, f := o.postRoot(ctx, root, "/tokenize", body)
		if f != nil {
			return 0, tokenizeFailure(f)
		}
		var a oaTokenizeAnswer
		if err := json.Unmarshal(ans, &a); err != nil || a.Count == nil {
			return 0, errNoTokenize
		}
		return *a.Count, nil
	}
	tmpl := *body
	tmpl.Model = "" // llama-server serves one model; the field is not its
	ans, f := o.postRoot(ctx, root, "/apply-template", &tmpl)
	if f != nil {
		return 0, tokenizeFailure(f)
	}
	var prompt struct {
		Prompt *string `json:"prompt"`
	}
	if err := json.Unmarshal(ans, &prompt); err != nil || prompt.Prompt == nil {
		return 0, errNoTokenize
	}
	ans, f = o.postRoot(ctx, root, "/tokenize", map[string]any{"content": *prompt.Prompt, "add_special": true, "parse_special": true})
	if f != nil {
		return 0, tokenizeFailure(f)
	}
	var a oaTokenizeAnswer
	if err := json.Unmarshal(ans, &a); err != nil || a.Tokens == nil {
		return 0, errNoTokenize
	}
	return len(a.Tokens), nil
}

// postRoot POSTs v to path at the server's root, once, within
// tokenizeTimeout, and returns the answer.
func (o *OpenAI) postRoot(ctx context.Context, root *url.URL, path string, v any) ([]byte, *failure) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, &failure{kind: KindBadRequest, msg: "unable to encode the request", err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, tokenizeTimeout)
	defer cancel()
	at := o.conn
	at.base = root
	var out []byte
	f := at.exchange(ctx, path, body, false, func(raw []byte) *failure {
		out = append([]byte(nil), raw...)
		return nil
	})
	return out, f
}

// tokenizeFailure sorts a failed request: a route the server does not
// have means no endpoint (remembered); anything else (no answer, a 5xx,
// a refused key, a model the server does not know) may pass.
func tokenizeFailure(f *failure) error {
	switch f.status {
	case http.StatusNotFound:
		if strings.Contains(strings.ToLower(f.msg), "model") {
			return errors.New(f.msg) // vLLM: the model `x` does not exist
		}
		return errNoTokenize
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return errNoTokenize
	}
	return errors.New(f.msg)
}

// root is the server's root: the base URL without its trailing /v1,
// where vLLM and llama-server keep their tokenize endpoints.
func (o *OpenAI) root() *url.URL {
	u := *o.base
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	return &u
}

var _ PromptCounter = (*OpenAI)(nil)
