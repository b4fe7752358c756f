package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// oaModelList is GET /models. Servers add the window under their own
// names: vLLM max_model_len, llama-server meta.n_ctx_train, LM Studio
// and others context_length or max_context_length.
type oaModelList struct {
	Data []struct {
		ID               string `json:"id"`
		MaxModelLen      int    `json:"max_model_len"`
		ContextLength    int    `json:"context_length"`
		MaxContextLength int    `json:"max_context_length"`
		Meta             *struct {
			NCtxTrain int `json:"n_ctx_train"`
		} `json:"meta"`
	} `json:"data"`
}

// Show returns what is known about model: the window from
// WithContextLength when set (the configured value is the authority, as
// it is what the person knows the server runs with), else what GET
// /models says. A server without /models, or one that does not list the
// model (llama-server answers to any name), is not an error: the window
// is then unknown unless configured. Asked once per model.
func (o *OpenAI) Show(ctx context.Context, model string) (*ModelInfo, error) {
	return o.models.show(ctx, model, o.model, func(model string) (*ModelInfo, error) {
		info := &ModelInfo{Name: model, ContextLength: o.contextLength}
		if info.ContextLength != 0 {
			return info, nil
		}
		var list oaModelList
		r := o.newRetrier()
		f := r.run(ctx, func() *failure {
			return o.exchange(ctx, "/models", nil, false, func(raw []byte) *failure {
				if err := json.Unmarshal(raw, &list); err != nil {
					return &failure{kind: KindOther, msg: "unable to read the server's model list", err: err}
				}
				return nil
			})
		})
		switch {
		case f == nil:
			info.ContextLength = windowFromList(&list, model)
		case f.status == http.StatusNotFound || f.status == http.StatusMethodNotAllowed:
			// No model list on this server; the window stays unknown.
		default:
			return nil, f.toError("", model, r.attempts, r.elapsed())
		}
		return info, nil
	})
}

// windowFromList finds the model's window in a model list; when the list
// holds a single model under another name (llama-server's file name) that
// one is meant.
func windowFromList(list *oaModelList, model string) int {
	pick := -1
	for i, m := range list.Data {
		if strings.EqualFold(m.ID, model) {
			pick = i
			break
		}
	}
	if pick < 0 && len(list.Data) == 1 {
		pick = 0
	}
	if pick < 0 {
		return 0
	}
	m := list.Data[pick]
	for _, n := range []int{m.MaxModelLen, m.ContextLength, m.MaxContextLength} {
		if n > 0 {
			return n
		}
	}
	if m.Meta != nil {
		return m.Meta.NCtxTrain
	}
	return 0
}
