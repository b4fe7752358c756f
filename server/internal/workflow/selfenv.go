package workflow

import (
	"os"
	"time"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// selfEnv is what a Script stage needs to call icm subcommands that work
// on behalf of the run (icm code-check --fix, icm critique, icm research):
// the binary as ICM_BIN, and the run's model server and model, so their
// model calls go where the run's own go. Their trace events land in the
// run's trace through AppendTrace.
func (r *run) selfEnv() []string {
	self := r.e.opts.Self
	if self == "" {
		self, _ = os.Executable()
	}
	var env []string
	if self != "" {
		env = append(env, "ICM_BIN="+self)
	}
	if o, ok := r.e.opts.Client.(interface{ BaseURL() string }); ok && o.BaseURL() != "" {
		env = append(env, "OLLAMA_HOST="+o.BaseURL())
	}
	if m := r.settings.Model(); m != "" {
		env = append(env, "ICM_MODEL="+m)
	}
	return env
}

// TraceAppender adds events to the trace of a run that is in progress,
// from another process the run started (a Script stage's icm subcommand):
// whole JSON lines appended with O_APPEND, like the run's own.
type TraceAppender struct {
	t     *trace
	runID string
	stage string
}

// AppendTrace opens the trace of run runID for appending events of stage.
func AppendTrace(ws *workspace.Workspace, runID, stage string) (*TraceAppender, error) {
	t, err := openTrace(ws, runID)
	if err != nil {
		return nil, err
	}
	return &TraceAppender{t: t, runID: runID, stage: stage}, nil
}

// Emit appends one event (its run id, stage and time filled in when empty).
func (a *TraceAppender) Emit(ev Event) {
	if a == nil {
		return
	}
	ev.RunID = a.runID
	if ev.Stage == "" {
		ev.Stage = a.stage
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	a.t.write(ev)
}

// Observer turns the agent loop's model and tool events into trace events
// for item (may be "").
func (a *TraceAppender) Observer(item string) func(agent.Event) {
	return func(ev agent.Event) {
		switch ev.Kind {
		case agent.EventModel:
			a.Emit(Event{Kind: EventModel, Item: item, Model: ev.Model})
		case agent.EventTool:
			a.Emit(Event{Kind: EventTool, Item: item, Tool: ev.Tool})
		}
	}
}

// Close closes the trace file.
func (a *TraceAppender) Close() {
	if a != nil {
		a.t.close()
	}
}
