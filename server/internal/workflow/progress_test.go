package workflow_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestForEachProgressCountsFinishedItems: with items running two at a
// time and out of order, every item event says how many have finished,
// and that count only grows, one per finished item.
func TestForEachProgressCountsFinishedItems(t *testing.T) {
	h := newSmall(t, ollamatest.Config{Slots: 2})
	cfg := filepath.Join(h.dir, "config.toml")
	os.WriteFile(cfg, []byte("[model]\nname = \"qwen3.5:9b\"\n[workflow]\nparallel = 2\n"), 0o644)
	scriptSmall(h.srv, 4)
	h.mustRun(workflow.Options{})
	h.approve("01-plan")
	h.events = nil
	h.mustRun(workflow.Options{})
	last := 0
	ends := 0
	for _, ev := range h.events {
		switch ev.Kind {
		case report.EventItemStart:
			if ev.Done != last || ev.Done >= ev.Count {
				t.Errorf("item %d started with done=%d (finished so far %d)", ev.Index, ev.Done, last)
			}
		case report.EventItemEnd:
			ends++
			if ev.Done != last+1 || !strings.Contains(ev.Message, "finished") {
				t.Errorf("item %d ended with done=%d after %d: %q", ev.Index, ev.Done, last, ev.Message)
			}
			last = ev.Done
		}
	}
	if ends != 4 || last != 4 {
		t.Errorf("%d item ends, last done %d; want 4 and 4", ends, last)
	}
}
