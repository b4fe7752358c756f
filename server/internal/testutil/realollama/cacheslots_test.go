package realollama

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestCacheLoadsReadsTheRunnersLines: the lines both runners write as a
// call starts are read in order, and nothing else is.
func TestCacheLoadsReadsTheRunnersLines(t *testing.T) {
	log := `time=2026-01-01T10:00:00.000Z level=INFO source=server.go:1 msg="llama runner started"
time=2026-01-01T10:00:01.000Z level=DEBUG source=cache.go:104 msg="loading cache slot" id=0 cache=0 prompt=1868 used=0 remaining=1868
time=2026-01-01T10:00:02.000Z level=DEBUG source=cache.go:151 msg="loading cache slot" id=1 cache=1890 prompt=1881 used=1741 remaining=140
time=2026-01-01T10:00:02.000Z level=DEBUG source=cache.go:190 msg="evicting cache slot" id=2 inputs=3 used=2026-01-01
`
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readCacheLoads(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []CacheLoad{{Slot: 0, Cache: 0, Prompt: 1868, Used: 0, Remaining: 1868}, {Slot: 1, Cache: 1890, Prompt: 1881, Used: 1741, Remaining: 140}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
