package workflow

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
)

// FindExchange rebuilds model call number call (1-based, as the trace
// numbers them within one stage or item) of a run: the conversation only
// grows within a loop, so a call's request is the previous call's plus the
// messages the trace says it added.
func FindExchange(r *report.RunSummary, stage string, index, call int) (*report.Exchange, error) {
	var req []report.Message
	for _, ev := range r.Events {
		if ev.Kind != report.EventModel || ev.Model == nil || ev.Stage != stage || ev.Index != index {
			continue
		}
		m := ev.Model
		if m.SentFrom > len(req) {
			return nil, fault.Failed(fmt.Sprintf("run %s: the trace of %s misses part of call %d's request (it was written before icm kept requests)", r.ID, stage, m.Call),
				"run the stage again to keep whole requests in its trace", nil)
		}
		// In place: only the call asked for is returned, so the earlier
		// requests need not survive (a copy per call was quadratic).
		req = append(req[:m.SentFrom], m.Sent...)
		if m.Call == call {
			return &report.Exchange{Stage: stage, Item: ev.Item, Index: index, Call: m, Request: req}, nil
		}
	}
	what := stage
	if index > 0 {
		what = fmt.Sprintf("%s item %d", stage, index)
	}
	return nil, fault.NotFound(fmt.Sprintf("run %s has no model call %d of %s; `icm history --run %s` lists its calls", r.ID, call, what, r.ID),
		"the run's tree lists its model calls")
}

// FindToolCall rebuilds tool call number call (1-based within one stage
// or item, as the trace numbers them) of a run. The trace keeps a tool's
// result only where the model read it, in the next model call's request:
// the n-th tool message sent in that loop answers its n-th tool call.
func FindToolCall(r *report.RunSummary, stage string, index, call int) (*report.ToolExchange, error) {
	var found *report.ToolExchange
	// seen counts the loop's tool calls so far, want is the found one's
	// place among them, results the tool messages sent so far.
	seen, want, results := 0, 0, 0
	for _, ev := range r.Events {
		if ev.Stage != stage || ev.Index != index {
			continue
		}
		switch {
		case ev.Kind == report.EventTool && ev.Tool != nil:
			seen++
			if ev.Tool.Call == call && found == nil {
				found, want = &report.ToolExchange{Stage: stage, Item: ev.Item, Index: index, Call: ev.Tool}, seen
			}
		case ev.Kind == report.EventModel && ev.Model != nil:
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
	return nil, fault.NotFound(fmt.Sprintf("run %s has no tool call %d of %s; `icm history --run %s` lists its calls", r.ID, call, what, r.ID),
		"the run's tree lists its tool calls")
}
