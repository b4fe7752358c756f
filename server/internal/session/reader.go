package session

import (
	"fmt"
	"os"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/mcpserver/browser"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// ReaderModel gives icm's page reader (`icm mcp browser`) the model it
// summarizes and extracts with: model, on the client readerClient makes
// for the reader's folder dir and host.
func ReaderModel(r *browser.Reader, dir, model, host string, opts Options) error {
	c, err := readerClient(dir, model, host, opts)
	if err != nil {
		return err
	}
	r.Model, r.ModelName = c, model
	return nil
}

// readerClient is the model client icm's page reader (`icm mcp browser`)
// summarizes and extracts with, talking to model. host, when set, is the
// Ollama server to use. Otherwise the reader runs in a workspace folder
// (a run starts it there), so dir's config.toml decides as it does for
// the run: Ollama, an OpenAI-compatible server, or a pool over
// [[model.servers]], so chunked reading spreads over the run's servers,
// through a session over the folder whose trust decides whether those
// servers may be used (they may when the trusted run that started the
// reader passed its trust on). Untrusted, or without a config.toml, it is
// the Ollama at OLLAMA_HOST. opts are the session's options (Getenv,
// os.Getenv when nil; Warn receives why config.toml's servers are not
// used).
func readerClient(dir, model, host string, opts Options) (llm.Client, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if host == "" && dir != "" {
		if cfg, err := workspace.LoadConfig(dir); err == nil && cfg.Path != "" {
			ws, err := workspace.Open(dir, nil)
			if err != nil {
				return nil, fault.From(err)
			}
			opts.Settings = Settings{Model: model}
			// The session (and the folder it holds) lives as long as the
			// client, which is the reader's for the life of the process.
			c, err := Open(ws, opts).modelClient()
			if err == nil {
				return c, nil
			}
			if fault.KindOf(err) != fault.KindUntrusted {
				return nil, fault.From(fmt.Errorf("%s [model]: %w", cfg.Path, err))
			}
			if opts.Warn != nil {
				opts.Warn(fmt.Sprintf("the model server %s names is not used: the workspace is not trusted", cfg.Path))
			}
		}
	}
	// The address is the reader's own (its --ollama, OLLAMA_HOST or
	// Ollama's default), never a workspace's.
	own := trust.Person(host, opts.Getenv("OLLAMA_HOST"), llm.DefaultOllamaHost)
	c, err := llm.NewOllama(llm.WithPermit(own), llm.WithBaseURL(host), llm.WithGetenv(opts.Getenv), llm.WithModel(model))
	if err != nil {
		return nil, fault.InvalidRequest(fmt.Sprintf("--ollama: %v", err), "give the Ollama server's address, as OLLAMA_HOST takes it").Because(err)
	}
	return c, nil
}
