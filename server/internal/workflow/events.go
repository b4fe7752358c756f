package workflow

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Event kinds, in the order a run produces them.
const (
	EventRunStart   = "run-start"
	EventStageStart = "stage-start"
	EventItemStart  = "item-start"
	EventModel      = "model"
	EventTool       = "tool"
	EventDelta      = "delta"
	EventItemEnd    = "item-end"
	EventScript     = "script"
	EventVerify     = "verify"
	EventStageEnd   = "stage-end"
	EventGate       = "gate"
	EventRunEnd     = "run-end"
)

// Event is one step of a run. The CLI prints events as progress, the
// language server turns them into $/progress, and every event but deltas is
// appended to the run's trace in history/<run-id>.jsonl.
type Event struct {
	Kind  string    `json:"kind"`
	Time  time.Time `json:"time"`
	RunID string    `json:"run_id"`
	Stage string    `json:"stage,omitempty"`
	// Item is the For each item's title; Index (1-based) and Count place it.
	Item  string `json:"item,omitempty"`
	Index int    `json:"index,omitempty"`
	Count int    `json:"count,omitempty"`
	// Done is how many of the Count items have finished (item-start,
	// item-end): progress counts these, since items run in parallel and
	// out of order.
	Done  int               `json:"done,omitempty"`
	Model *agent.ModelEvent `json:"model,omitempty"`
	Tool  *agent.ToolEvent  `json:"tool,omitempty"`
	// Delta is streamed answer text (never written to the trace).
	Delta string `json:"-"`
	// Message is a one-line human summary.
	Message string `json:"message,omitempty"`
	// Note is a person's note for the model on a run of one For each
	// item again (run-start, with Stage and Index naming the item).
	Note string `json:"note,omitempty"`
	Err  string `json:"error,omitempty"`
	// Outputs are workspace-relative output paths (stage-end).
	Outputs []string `json:"outputs,omitempty"`
	// Status is the stage's run status (stage-end) or state after the gate.
	Status string               `json:"status,omitempty"`
	Verify []state.VerifyResult `json:"verify,omitempty"`
	// Rubric are the review rubrics' checks (verify, stage-end).
	Rubric []state.RubricCheck `json:"rubric,omitempty"`
	// ReviewGate is the contract's Review Gate text (stage-end).
	ReviewGate string `json:"review_gate,omitempty"`
	// SameOutput is set on a good stage-end whose outputs are byte for
	// byte what the stage's last good run wrote, so an approval of them
	// stands and nothing after the stage goes stale.
	SameOutput bool `json:"same_output,omitempty"`
	// Duration is the stage's or run's wall time (stage-end, run-end).
	Duration time.Duration `json:"duration,omitempty"`
	// Tokens are totals for the stage or run (stage-end, run-end).
	PromptTokens int `json:"prompt_tokens,omitempty"`
	OutputTokens int `json:"output_tokens,omitempty"`
}

// trace appends a run's events to history/<run-id>.jsonl, one JSON object
// per line, written whole with O_APPEND so a killed run leaves at most its
// last line cut.
type trace struct {
	mu sync.Mutex
	f  *os.File
}

// TracePath returns where a run's trace lives.
func TracePath(ws *workspace.Workspace, runID string) string {
	return filepath.Join(ws.Root, workspace.HistoryDir, runID+".jsonl")
}

func openTrace(ws *workspace.Workspace, runID string) (*trace, error) {
	p := TracePath(ws, runID)
	// Through the workspace's Root: a history/ linked out of the workspace
	// is refused, so the prompts a trace holds stay inside.
	if err := ws.Disk.MkdirAll(workspace.HistoryDir); err != nil {
		return nil, fmt.Errorf("unable to create %s: %w", filepath.Dir(p), err)
	}
	f, err := ws.Disk.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("unable to open the run trace %s: %w", p, err)
	}
	return &trace{f: f}, nil
}

func (t *trace) write(e Event) {
	if t == nil || e.Kind == EventDelta {
		return
	}
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.f.Write(append(data, '\n'))
}

func (t *trace) close() {
	if t != nil {
		t.f.Close()
	}
}
