package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/suggest"
)

// Lister is a Client that can list the models its server has: for the
// "did you mean" of a missing model, config checks and completion.
type Lister interface {
	// Models returns the names of the installed models, sorted.
	Models(ctx context.Context) ([]string, error)
}

// ListModels lists the models c's server has, or says that it cannot.
func ListModels(ctx context.Context, c Client) ([]string, error) {
	if l, ok := c.(Lister); ok {
		return l.Models(ctx)
	}
	return nil, &Error{Kind: KindUnsupported, Msg: "this model client cannot list the server's models"}
}

// Models lists the installed models (GET /api/tags, the answer shared
// with counting: see CountMemory).
func (o *Ollama) Models(ctx context.Context) ([]string, error) { return o.installed(ctx) }

// Models lists the served models (GET /models).
func (o *OpenAI) Models(ctx context.Context) ([]string, error) {
	var list oaModelList
	if err := o.getJSON(ctx, "/models", &list); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		names = append(names, m.ID)
	}
	sort.Strings(names)
	return names, nil
}

// Models lists the models of the first server that answers.
func (p *Pool) Models(ctx context.Context) ([]string, error) {
	var last error = &Error{Kind: KindUnsupported, Msg: "no model server lists its models"}
	for _, m := range p.order() {
		names, err := ListModels(ctx, m.Client)
		if err == nil {
			return names, nil
		}
		last = err
	}
	return nil, last
}

// Models lists the models of the client the fallback wraps.
func (f *fallback) Models(ctx context.Context) ([]string, error) { return ListModels(ctx, f.Client) }

// getJSON GETs path and decodes the answer into v, with the usual retries.
func (o *conn) getJSON(ctx context.Context, path string, v any) error {
	r := o.newRetrier()
	f := r.run(ctx, func() *failure {
		return o.exchange(ctx, path, nil, false, func(raw []byte) *failure {
			if err := json.Unmarshal(raw, v); err != nil {
				return &failure{kind: KindOther, msg: "unable to read the server's model list", err: err}
			}
			return nil
		})
	})
	if f != nil {
		return f.toError("", "", r.attempts, r.elapsed())
	}
	return nil
}

// listTimeout bounds the model list asked for to explain a missing model:
// the error is worth more than the suggestion.
const listTimeout = 3 * time.Second

// explainMissing makes a missing-model error say what the server has:
// "model X is not installed — did you mean Y?", with the installed names
// and the suggestion kept on the error for the editor's buttons.
// canPull says whether the server can download models (Ollama can; an
// OpenAI-compatible server serves what it was started with).
func explainMissing(ctx context.Context, e *Error, server string, list func(context.Context) ([]string, error), canPull bool) {
	if e == nil || e.Kind != KindModelMissing || e.Model == "" {
		return
	}
	lctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	names, err := list(lctx)
	e.Msg = fmt.Sprintf("model %q is not installed on %s", e.Model, server)
	if err != nil {
		return
	}
	e.Installed = names
	e.Suggestion = suggest.Model(e.Model, names)
	e.Typo = suggest.ModelTypo(e.Model, names) != ""
	pull := fmt.Sprintf("pull it with `ollama pull %s` (or `icm pull %s`)", e.Model, e.Model)
	if !canPull {
		pull = "start the server with that model"
	}
	switch {
	case e.Suggestion != "":
		e.Msg += fmt.Sprintf(" — did you mean %q?", e.Suggestion)
		e.Hint = fmt.Sprintf("use %q (set [model] name in config.toml, the contract's `model:` line or the icm.model setting)", e.Suggestion)
		if !e.Typo {
			// Another size or tag of an installed family may be the model
			// meant; pulling a misspelling is no fix.
			e.Hint += ", or " + pull
		}
	case len(names) == 0:
		e.Hint = "the server has no models yet: " + pull
	default:
		e.Hint = fmt.Sprintf("%s; the server has: %s", pull, strings.Join(names, ", "))
	}
}
