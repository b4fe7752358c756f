package session

import (
	"context"
	"strings"

	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// evidenceCacheSize bounds the results a session keeps in memory: a few
// outputs per stage of a workspace being reviewed.
const evidenceCacheSize = 64

// Evidence is what each Markdown output of a stage rests on, as the
// output is on disk now (a person's edit included): worked out from the
// stage's inputs and what its last run's tools returned, cached by the
// output's and the sources' hashes. It informs; it decides nothing. A
// workspace its person has not trusted gets it too, and keeps no cache
// on disk.
func (rv Reviews) Evidence(ctx context.Context, stage string) ([]*evidence.Result, error) {
	s := rv.s
	res, err := workflow.Evidence(ctx, s.ws, stage, workflow.EvidenceOptions{Cache: s.evidence, ReadOnly: !s.trust.Allowed(), Embedder: s.embedder()})
	if err != nil {
		return nil, fault.From(err)
	}
	return res, nil
}

// embedder is the embedding model [evidence] embed_model names, on the
// session's model server and through its permit; nil when none is named
// or the workspace is not trusted: an untrusted workspace's setting asks
// nothing of any server. A setting that cannot work (a server that is
// not Ollama) gives an embedder that fails, so each result's note says
// why.
func (s *Session) embedder() evidence.Embedder {
	name := strings.TrimSpace(s.ws.Config.Evidence.EmbedModel)
	if name == "" || !s.trust.Allowed() {
		return nil
	}
	opts := []llm.Option{llm.WithPermit(s.permit())}
	if h := s.host(); h != "" {
		opts = append(opts, llm.WithBaseURL(h))
	}
	e, err := llm.NewEmbedder(s.modelConfig(), name, s.opts.Getenv, opts...)
	if err != nil {
		return failedEmbedder{model: name, err: fault.From(err)}
	}
	return e
}

// failedEmbedder is an embedding model that could not be set up.
type failedEmbedder struct {
	model string
	err   error
}

func (f failedEmbedder) Model() string { return f.model }

func (f failedEmbedder) Embed(context.Context, []string) ([][]float32, error) { return nil, f.err }
