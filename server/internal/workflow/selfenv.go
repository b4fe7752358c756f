package workflow

import (
	"os"
	"sort"
	"time"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// ChildEnv is the one rule for the environment of icm's own child
// processes (a Script stage's icm subcommands, `command = "icm"` MCP
// servers such as the reader's summarize and extract): base (what the
// session passes on: the SearXNG URL, API key variables, the cache
// folder) with the model the stage runs on as ICM_MODEL and, when client
// speaks Ollama's API to one server, that server as OLLAMA_HOST. The
// stage's own settings win over inherited values, so ICM_MODEL=a icm run
// --model b gives b to the children as well.
func ChildEnv(base map[string]string, client llm.Client, model string) map[string]string {
	out := make(map[string]string, len(base)+2)
	for k, v := range base {
		if v != "" {
			out[k] = v
		}
	}
	if u := llm.OllamaURL(client); u != "" {
		out["OLLAMA_HOST"] = u
	}
	if model != "" {
		out["ICM_MODEL"] = model
	}
	return out
}

// childEnv is ChildEnv for this stage's run.
func (r *run) childEnv() map[string]string {
	return ChildEnv(r.e.opts.ChildEnv, r.e.opts.Client, r.settings.Model())
}

// scriptEnv is what a Script stage needs beyond the process environment
// to call icm subcommands that work on behalf of the run (icm code-check
// --fix, icm critique, icm research): the binary as ICM_BIN and the
// child environment. Their trace events land in the run's trace through
// AppendTrace.
func (r *run) scriptEnv() []string {
	self := r.e.opts.Self
	if self == "" {
		self, _ = os.Executable()
	}
	var env []string
	if self != "" {
		env = append(env, "ICM_BIN="+self)
	}
	child := r.childEnv()
	keys := make([]string, 0, len(child))
	for k := range child {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+child[k])
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
func (a *TraceAppender) Emit(ev report.Event) {
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
			a.Emit(report.Event{Kind: report.EventModel, Item: item, Model: ev.Model})
		case agent.EventTool:
			a.Emit(report.Event{Kind: report.EventTool, Item: item, Tool: ev.Tool})
		}
	}
}

// Close closes the trace file.
func (a *TraceAppender) Close() {
	if a != nil {
		a.t.close()
	}
}
