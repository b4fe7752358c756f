package workflow

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/llm"
)

// Exchange is one model call of a run as the model saw it: the whole
// request and the reply, rebuilt from the trace.
type Exchange struct {
	Stage string `json:"stage"`
	// Item and Index name the For each item ("" and 0 for a stage without one).
	Item  string            `json:"item,omitempty"`
	Index int               `json:"index,omitempty"`
	Call  *agent.ModelEvent `json:"call"`
	// Request is every message the call sent, in order.
	Request []llm.Message `json:"request"`
}

// FindExchange rebuilds model call number call (1-based, as the trace
// numbers them within one stage or item) of a run: the conversation only
// grows within a loop, so a call's request is the previous call's plus the
// messages the trace says it added.
func FindExchange(r *RunSummary, stage string, index, call int) (*Exchange, error) {
	var req []llm.Message
	for _, ev := range r.Events {
		if ev.Kind != EventModel || ev.Model == nil || ev.Stage != stage || ev.Index != index {
			continue
		}
		m := ev.Model
		if m.SentFrom > len(req) {
			return nil, fmt.Errorf("run %s: the trace of %s misses part of call %d's request (it was written before icm kept requests)", r.ID, stage, m.Call)
		}
		// In place: only the call asked for is returned, so the earlier
		// requests need not survive (a copy per call was quadratic).
		req = append(req[:m.SentFrom], m.Sent...)
		if m.Call == call {
			return &Exchange{Stage: stage, Item: ev.Item, Index: index, Call: m, Request: req}, nil
		}
	}
	what := stage
	if index > 0 {
		what = fmt.Sprintf("%s item %d", stage, index)
	}
	return nil, fmt.Errorf("run %s has no model call %d of %s; `icm history --run %s` lists its calls", r.ID, call, what, r.ID)
}

// ToolExchange is one tool call of a run: what the model asked for, what
// the tool gave back (as the model was given it) and how it failed.
type ToolExchange struct {
	Stage string `json:"stage"`
	// Item and Index name the For each item ("" and 0 for a stage without one).
	Item  string           `json:"item,omitempty"`
	Index int              `json:"index,omitempty"`
	Call  *agent.ToolEvent `json:"call"`
	// Result is the text fed back to the model; HasResult is false when
	// no later model call of the loop carried it (the run stopped first).
	Result    string `json:"result"`
	HasResult bool   `json:"has_result"`
}

// FindToolCall rebuilds tool call number call (1-based within one stage
// or item, as the trace numbers them) of a run. The trace keeps a tool's
// result only where the model read it, in the next model call's request:
// the n-th tool message sent in that loop answers its n-th tool call.
func FindToolCall(r *RunSummary, stage string, index, call int) (*ToolExchange, error) {
	var found *ToolExchange
	// seen counts the loop's tool calls so far, want is the found one's
	// place among them, results the tool messages sent so far.
	seen, want, results := 0, 0, 0
	for _, ev := range r.Events {
		if ev.Stage != stage || ev.Index != index {
			continue
		}
		switch {
		case ev.Kind == EventTool && ev.Tool != nil:
			seen++
			if ev.Tool.Call == call && found == nil {
				found, want = &ToolExchange{Stage: stage, Item: ev.Item, Index: index, Call: ev.Tool}, seen
			}
		case ev.Kind == EventModel && ev.Model != nil:
			for _, m := range ev.Model.Sent {
				if m.Role != llm.RoleTool {
					continue
				}
				results++
				if found != nil && results == want {
					found.Result, found.HasResult = m.Content, true
					return found, nil
				}
			}
		}
	}
	if found != nil {
		return found, nil
	}
	what := stage
	if index > 0 {
		what = fmt.Sprintf("%s item %d", stage, index)
	}
	return nil, fmt.Errorf("run %s has no tool call %d of %s; `icm history --run %s` lists its calls", r.ID, call, what, r.ID)
}
