package lsp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/fault/faulttest"
	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

var update = flag.Bool("update", false, "rewrite the golden files of the protocol surface")

// golden compares got with the file at rel (from the repository root), or
// rewrites the file with -update. A change to what a client reads shows
// up as a reviewed diff of that file.
func golden(t *testing.T, rel string, got []byte) {
	t.Helper()
	file := filepath.Join(wstest.RepoRoot(t), filepath.FromSlash(rel))
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from what the server sends now (go test -run %s -update rewrites it after review):\n%s", rel, t.Name(), got)
	}
}

// TestErrorDataOfEveryKind pins the error data of one fault per kind, as
// the server sends it; the extension's presenter tests read the same file,
// so the two sides cannot drift apart.
func TestErrorDataOfEveryKind(t *testing.T) {
	type sample struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	out := map[string]sample{}
	for k, f := range faulttest.Cases() {
		out[string(k)] = sample{Code: lsp.ErrorCode(f), Message: f.Msg, Data: lsp.ErrorData(f)}
	}
	if len(out) != len(fault.Kinds()) {
		t.Fatalf("%d samples for %d kinds", len(out), len(fault.Kinds()))
	}
	got, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "extension/test/unit/fixtures/error-data.json", append(got, '\n'))
}
