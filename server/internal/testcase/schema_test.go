package testcase

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
)

// A case's json-schema whose $ref leads outside the workspace is an error
// of the case, at its line, as a stage's own would be: icm test would
// refuse to follow it.
func TestACaseSchemaRefOutsideIsAnError(t *testing.T) {
	ws := open(t)
	outside := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(outside, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := ws.Stage("01-a")
	if err := os.WriteFile(filepath.Join(st.Dir, "schema.json"), []byte(`{"$ref": "file://`+filepath.ToSlash(outside)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, fs := checkOf(t, ws, "01-a", "good")
	for _, f := range fs {
		if f.Code == contract.CodeSchemaRef && f.Severity == contract.Error &&
			strings.Contains(f.Message, "schema pipeline/01-a/schema.json line 1: $ref file://") && strings.Contains(f.Message, "is outside the workspace") {
			return
		}
	}
	t.Errorf("no error for the schema's $ref: %v", fs)
}
