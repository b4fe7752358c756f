package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault/faulttest"
	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/testutil/golden"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// goldenFile compares got with the file at rel (from the repository root).
func goldenFile(t *testing.T, rel string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join(wstest.RepoRoot(t), filepath.FromSlash(rel)), got)
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
	got, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "extension/test/unit/fixtures/error-data.json", append(got, '\n'))
}
