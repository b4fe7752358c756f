package workflow

import (
	"encoding/json"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
)

// keepResult keeps the text a tool call that worked gave the model, for
// the record (the trace holds it only inside the next model request).
func (r *run) keepResult(at itemAt, t *report.ToolEvent) {
	args := ""
	if len(t.Args) > 0 {
		if b, err := json.Marshal(t.Args); err == nil {
			args = string(b)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results.Add(state.ToolResult{Item: at.title, Index: at.index, Call: t.Call, Name: t.Name, Server: t.Server, Tool: t.Tool, Args: args, Text: t.Result})
}

// writeResults keeps the run's tool results beside its record. When the
// run wrote one For each item again, the other items' results of the
// record it replaces (old) are kept beside the item's new ones.
func (r *run) writeResults(runID string, old *state.Record, item string) error {
	r.mu.Lock()
	kept := state.ToolResults{Stage: r.st.Name, RunID: runID}
	if old != nil {
		if prev, err := state.ReadToolResults(r.e.ws.Disk, r.st.Dir, old.RunID); err == nil && prev != nil {
			for _, res := range prev.Results {
				if res.Item != item {
					kept.Add(res)
				}
			}
		}
	}
	for _, res := range r.results.Results {
		kept.Add(res)
	}
	kept.Dropped += r.results.Dropped
	r.mu.Unlock()
	return state.WriteToolResults(r.e.ws.Disk, r.st.Dir, &kept)
}
