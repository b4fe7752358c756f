package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/suggest"
	"github.com/icm-tool/icm/server/internal/trust"
)

// pullRetry is how long a pull waits for a model server that does not
// answer: a person is waiting, so it says soon that the server is not
// there.
const (
	pullRetry    = 10 * time.Second
	pullAttempts = 4
)

// ModelPull is a model download made ready: what it pulls, why that
// model, and from where, known before it starts.
type ModelPull struct {
	// Model is the model to download.
	Model string
	// Source says where the model's name came from when the request named
	// none ("from /w/config.toml", "icm's default model"); "" when it did.
	Source string
	// URL is the model server that downloads it; "" for a pool of several
	// ([[model.servers]]), each of which pulls it in turn.
	URL string

	client llm.Client
}

// PreparePull makes ready the download of model ("" for the model in
// force: the settings' model, else config.toml's) onto the session's
// model server (for a folder that is no workspace, open it as one for its
// config.toml). Only an Ollama server can be asked to download a model;
// any other provider is a config-invalid fault. Untrusted, neither a
// server the workspace names is contacted nor a model it names on a
// registry other than Ollama's own pulled (the server would contact that
// registry): a name the person gives that the workspace does not name is
// theirs.
func (ms ModelServer) PreparePull(model string) (*ModelPull, error) {
	s := ms.s
	cfg := s.ws.Config
	source := ""
	if model == "" {
		if model = s.opts.Settings.Model; model == "" {
			model, source = cfg.Model.Name, sourceOf(cfg.Path)
		}
	}
	if model == "" {
		return nil, fault.ConfigInvalid("no model named to pull", "name the model, or set [model] name in config.toml", cfg.Path)
	}
	if p := strings.ToLower(strings.TrimSpace(cfg.Model.Provider)); p != "" && p != llm.ProviderOllama {
		return nil, fault.ConfigInvalid(fmt.Sprintf("%s: [model] provider is %q; only an Ollama server can be asked to download a model", cfg.Path, cfg.Model.Provider),
			"download the model with your server's own tool", cfg.Path)
	}
	if s.modelBlocked() {
		return nil, s.refusal("pull a model onto the model server it names")
	}
	if v, other := trust.PullValue(model); other && !s.trust.Allowed() && s.trust.Parts.Names(trust.Pull, v) {
		return nil, s.refusal(fmt.Sprintf("pull %s, which the model server would fetch from %s", model, trust.RegistryHost(model)))
	}
	// The session's client, for the server it contacts (the model to pull
	// is named in the request).
	c, err := s.newClient(llm.WithRetry(pullRetry, pullAttempts))
	if err != nil {
		return nil, err
	}
	return &ModelPull{Model: model, Source: source, URL: baseURL(c), client: c}, nil
}

// Run downloads the model, passing each step to progress (which may be
// nil). Errors are *fault.Error.
func (p *ModelPull) Run(ctx context.Context, progress func(report.PullProgress)) error {
	var step func(llm.PullProgress)
	if progress != nil {
		step = func(pp llm.PullProgress) {
			progress(report.PullProgress{Status: pp.Status, Digest: pp.Digest, Total: pp.Total, Completed: pp.Completed})
		}
	}
	err := p.client.Pull(ctx, p.Model, step)
	if err == nil {
		return nil
	}
	fe := fault.From(err)
	if fe.Kind != fault.KindModelMissing {
		return fe
	}
	// The registry has no such model: pulling again cannot help. What
	// can is a model the server has, the likely one first.
	lctx, cancel := context.WithTimeout(ctx, modelsWait)
	defer cancel()
	installed, lerr := llm.ListModels(lctx, p.client)
	if lerr != nil {
		installed = nil
	}
	return fault.NotInRegistry(p.Model, suggest.Model(p.Model, installed), installed, err)
}

// sourceOf says where a model name from config.toml comes from: the file
// at path, or icm's defaults when there is none.
func sourceOf(path string) string {
	if path == "" {
		return "icm's default model"
	}
	return "from " + path
}

// baseURL is the one server a client talks to, "" for a pool.
func baseURL(c llm.Client) string {
	if b, ok := c.(interface{ BaseURL() string }); ok {
		return b.BaseURL()
	}
	return ""
}
