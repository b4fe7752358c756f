package session

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// historyCheck is how often a session looks in history/ for new runs to
// calibrate with: the editor counts after every edit, and listing the
// folder on every count is wasted when nothing ran.
const historyCheck = 2 * time.Second

// calibrations is a session's calibration from run history, read again
// when the traces change.
type calibrations struct {
	mu      sync.Mutex
	checked time.Time
	key     string // the traces' names, sizes and times
	calls   []workflow.ModelCall
	err     error
	byModel map[string]promptcount.Calibration
}

// calibration is the calibration of counts of calls to model from the
// workspace's run history (history/*.jsonl): the newest
// promptcount.MaxCalibrationRuns runs with the model, each call's server
// count beside icm's estimate. It is applied to counts that can only be
// estimated (no model files here, no /tokenize), which then say
// "calibrated from N runs".
func (cn Counts) calibration(model string) promptcount.Calibration {
	s := cn.s
	c := &s.calib
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.checked.IsZero() || now.Sub(c.checked) >= historyCheck {
		c.checked = now
		if key := tracesKey(s.ws); key != c.key || c.byModel == nil {
			c.key = key
			c.calls, c.err = workflow.ModelCalls(s.ws, promptcount.MaxCalibrationRuns)
			c.byModel = map[string]promptcount.Calibration{}
			if c.err != nil {
				s.warn(fmt.Sprintf("unable to read the run history for calibration: %v", c.err))
			}
		}
	}
	if cal, ok := c.byModel[model]; ok {
		return cal
	}
	pairs := make([]promptcount.Pair, 0, len(c.calls))
	for _, m := range c.calls {
		pairs = append(pairs, promptcount.Pair{Run: m.Run, Stage: m.Stage, Model: m.Model, Estimated: m.Guess, Server: m.Server,
			First: m.Call == 1})
	}
	cal := promptcount.Calibrate(model, pairs)
	c.byModel[model] = cal
	return cal
}

// tracesKey names the run traces as they are now: a run that starts,
// grows or ends changes it.
func tracesKey(ws *workspace.Workspace) string {
	entries, err := ws.Disk.ReadDir(workspace.HistoryDir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".jsonl" {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "%s %d %d\n", e.Name(), info.Size(), info.ModTime().UnixNano())
	}
	return b.String()
}
