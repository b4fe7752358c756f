package workflow

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/workspace"
)

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

func (t *trace) write(e report.Event) {
	if t == nil || e.Kind == report.EventDelta {
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
