package llm

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/act"
)

// pullChunk is one line of /api/pull's answer, or an error object.
type pullChunk struct {
	api.ProgressResponse
	Error string `json:"error"`
}

// Pull asks the server to download model, passing each progress report
// to progress (which may be nil). A pull resumes where it stopped, so
// transient failures are retried even after progress was reported; an
// error the server reports (no such model, no registry access) is final.
func (o *Ollama) Pull(ctx context.Context, model string, progress func(PullProgress)) error {
	if model == "" {
		model = o.model
	}
	if model == "" {
		return &Error{Kind: KindBadRequest, Msg: "no model named", Hint: "name one: icm pull MODEL, or set [model] name in config.toml"}
	}
	// The server would fetch the model from the registry its name
	// names: that is asked of the permit before the server is.
	if err := act.Ask(o.permit, act.Action{Kind: act.Pull, URL: o.base.String(), Named: act.Named{Model: model}}); err != nil {
		return &Error{Kind: KindOther, Model: model, Msg: "the server was not asked to pull " + model, Err: err}
	}
	body, err := json.Marshal(api.PullRequest{Model: model, Stream: ptr(true)})
	if err != nil {
		return &Error{Kind: KindOther, Model: model, Msg: "unable to encode the pull request", Err: err}
	}
	r := o.newRetrier()
	f := r.run(ctx, func() *failure {
		success := false
		f := o.exchange(ctx, "/api/pull", body, true, func(raw []byte) *failure {
			var c pullChunk
			if err := json.Unmarshal(raw, &c); err != nil {
				return &failure{kind: KindStream, retry: retryOnce, msg: "unable to read the pull progress", err: err}
			}
			if c.Error != "" {
				return pullFailure(model, c.Error)
			}
			if c.Status == "success" {
				success = true
			}
			if progress != nil {
				progress(PullProgress{Status: c.Status, Digest: c.Digest, Total: c.Total, Completed: c.Completed})
			}
			return nil
		})
		if f == nil && !success {
			f = &failure{kind: KindStream, retry: retryTransient, msg: "the pull ended before the server reported success"}
		}
		if f != nil && f.status >= 500 && f.kind == KindOther {
			// Errors before the first progress line come as a status.
			if pf := pullFailure(model, f.msg); pf.kind != KindStream {
				f.kind, f.hint, f.retry = pf.kind, pf.hint, retryNever
			}
		}
		return f
	})
	// Whatever happened, the model may have changed: ask /api/show and
	// /api/tags again.
	o.models.forget(model)
	o.forgetTags()
	if f != nil {
		e := f.toError("", model, r.attempts, r.elapsed())
		if e.Kind == KindModelMissing {
			e.Hint, e.registry = pullMissingHint(model), true
		}
		return e
	}
	return nil
}

// pullFailure sorts an error the server reported during a pull.
func pullFailure(model, msg string) *failure {
	lower := strings.ToLower(msg)
	f := &failure{kind: KindStream, msg: "the server could not pull " + model + ": " + msg}
	switch {
	case strings.Contains(lower, "file does not exist") || strings.Contains(lower, "not found") ||
		strings.Contains(lower, "manifest unknown"):
		f.kind = KindModelMissing
	case strings.Contains(lower, "no such host") || strings.Contains(lower, "dial tcp") ||
		strings.Contains(lower, "connection refused") || strings.Contains(lower, "timeout") ||
		strings.Contains(lower, "max retries exceeded"):
		f.kind = KindUnavailable
		f.hint = "the Ollama server cannot reach its model registry: check its internet access or proxy settings (HTTPS_PROXY in the server's environment)"
	default:
		f.hint = "see the Ollama server log for the cause"
	}
	return f
}

func pullMissingHint(model string) string {
	return "the registry has no model named " + model + ": check the name and tag at https://ollama.com/library"
}
