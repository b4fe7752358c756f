package llm

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
)

// OpenAI is a Client for a server that speaks the OpenAI chat completions
// API (vLLM, llama.cpp's llama-server, LM Studio, a shared gateway, ...).
// It shares the Ollama client's error kinds, retry policy and prompt
// check; what differs is the wire format and the context window: such a
// server fixes its window at start-up and takes no num_ctx, so the window
// comes from the request's NumCtx, else WithContextLength ([model]
// context_length), else what GET /models says (vLLM's max_model_len,
// llama-server's n_ctx_train), and the prompt is checked against it before
// every call. It is safe for concurrent use.
type OpenAI struct {
	conn
	models *modelCache
	// callIDs numbers tool calls that arrive without an id, so every tool
	// result can name the call it answers.
	callIDs atomic.Int64
}

// WithAPIKey sets the bearer token sent with every request. FromConfig
// reads it from the environment variable [model] api_key_env names; the
// key itself never appears in config.toml.
func WithAPIKey(key string) Option { return func(o *settings) { o.apiKey = key } }

// WithContextLength sets the model's context window for servers that
// cannot be asked for it (OpenAI-compatible ones; [model] context_length).
func WithContextLength(n int) Option {
	return func(o *settings) {
		if n > 0 {
			o.contextLength = n
		}
	}
}

var openAIDialect = dialect{
	server: "the OpenAI-compatible server",
	sse:    true,
	startHint: func(base *url.URL) string {
		return fmt.Sprintf("start the server (vLLM, llama-server, LM Studio, ...) or point [model] base_url at it (now %s)", base)
	},
	logHint:       "see the model server's log for the cause",
	notServerHint: "the address does not look like an OpenAI-compatible server (no chat/completions route): [model] base_url usually ends in /v1",
}

// NewOpenAI returns a client for the OpenAI-compatible server at the base
// URL option (WithBaseURL), which is required. An address without a path
// gets /v1, where these servers keep the API.
func NewOpenAI(opts ...Option) (*OpenAI, error) {
	st := defaultSettings()
	for _, opt := range opts {
		opt(&st)
	}
	base, err := OpenAIBaseURL(st.baseURL)
	if err != nil {
		return nil, err
	}
	if st.hc == nil {
		st.hc = newHTTPClient(st.permit, base, st.baseURL)
	}
	return &OpenAI{conn: newConn(st, base, openAIDialect), models: newModelCache()}, nil
}

// OpenAIBaseURL reads the address of an OpenAI-compatible server:
// "http://host:port/v1", "https://gateway/openai/v1", or "host:port"
// (http and /v1 implied).
func OpenAIBaseURL(value string) (*url.URL, error) {
	s := strings.TrimSpace(value)
	if s == "" {
		return nil, badSetting("set [model] base_url to the server's address", "[model] base_url is empty: an OpenAI-compatible server has no default address; set it, e.g. base_url = \"http://127.0.0.1:8000/v1\"")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, badSetting(addressHint, "unable to use model server address %q: %v", value, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, badSetting(addressHint, "unable to use model server address %q: the scheme must be http or https", value)
	}
	if u.Host == "" {
		return nil, badSetting(addressHint, "unable to use model server address %q: it names no host", value)
	}
	if u.User != nil {
		return nil, badSetting("name the variable that holds the key in [model] api_key_env, and take it out of the address", "unable to use model server address %q: put credentials in the environment variable [model] api_key_env names, not in the address", value)
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	if u.Path == "" {
		u.Path = "/v1"
	}
	return u, nil
}

// BaseURL returns the server address the client talks to.
func (o *OpenAI) BaseURL() string { return o.base.String() }

// Pull is not part of the OpenAI API: models are loaded by the server's
// own tooling.
func (o *OpenAI) Pull(ctx context.Context, model string, progress func(PullProgress)) error {
	return &Error{Kind: KindUnsupported, Model: model, Msg: "an OpenAI-compatible server cannot be asked to download a model",
		Hint: "load the model with the server's own tool (vllm serve, llama-server -m, the LM Studio app), or use an Ollama server for icm pull"}
}

// nextCallID makes an id for a tool call the server sent without one.
func (o *OpenAI) nextCallID() string {
	return fmt.Sprintf("call_icm_%d", o.callIDs.Add(1))
}

var _ Client = (*OpenAI)(nil)
