package stagetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestReportsNeverGoThroughAHistoryLinkedOut: history/ links to a folder
// outside the workspace. Saving a test report or a cached reply there is
// refused and writes nothing outside; the reports and replies a folder
// outside holds are never listed or read as the workspace's, and clearing
// the cache deletes nothing there.
func TestReportsNeverGoThroughAHistoryLinkedOut(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Do it.

## Outputs
- a.md -> output/
`)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(outside, "tests", "20260101-000000.json")
	if err := os.WriteFile(planted, []byte(`{"version": 1, "run_id": "20260101-000000"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("ab", 32)
	reply := filepath.Join(outside, "tests", "cache", key[:2], key+".json")
	if err := os.MkdirAll(filepath.Dir(reply), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reply, []byte(`{"key": "`+key+`", "response": {"model": "m"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, workspace.HistoryDir)); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()

	if _, err := Save(ws.Disk, &report.TestReport{Version: ReportVersion, RunID: "20260202-000000"}); err == nil {
		t.Error("a report was saved through history/, a link out of the workspace")
	}
	cache := &cacheStore{disk: ws.Disk, dir: filepath.Join(ws.Root, CacheDir)}
	if _, ok := cache.get(key); ok {
		t.Error("a cached reply was read from the folder outside")
	}
	if err := cache.put(strings.Repeat("cd", 32), &llm.ChatResponse{Model: "m"}, time.Now()); err == nil {
		t.Error("a reply was cached through history/, a link out of the workspace")
	}
	if err := ClearCache(ws.Disk); err == nil {
		t.Error("clearing the cache through history/, a link out, was not refused")
	}
	if _, err := os.Stat(reply); err != nil {
		t.Errorf("the reply planted outside is gone: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(outside, "tests"))
	if len(entries) != 2 {
		t.Errorf("the folder outside holds %d entries, want only the two planted there", len(entries))
	}
	caches, _ := os.ReadDir(filepath.Join(outside, "tests", "cache"))
	if len(caches) != 1 {
		t.Errorf("the cache folder outside holds %d entries, want only the one planted there", len(caches))
	}
	if ids, err := Runs(ws.Disk); err == nil || len(ids) != 0 {
		t.Errorf("Runs = %v, %v: it listed the folder outside", ids, err)
	}
	if rep, err := Load(ws.Disk, Latest); err == nil {
		t.Errorf("Load read %q from the folder outside", rep.RunID)
	}
	if id, _, ok := LastPassing(ws.Disk, "01-a/x", "m", ""); ok {
		t.Errorf("LastPassing found run %s outside", id)
	}
}
