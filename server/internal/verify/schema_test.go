package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// A json-schema check reads its schema and the schema files it refers to
// through the workspace it is given: a reference to a schema beside the
// first is followed, one to a file outside it is refused and the check
// reports why, naming the schema's line.
func TestJSONSchemaRefsStayInTheWorkspace(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "s.json"), []byte(`{"type": "integer"}`), 0o644))
	must(os.WriteFile(filepath.Join(dir, "defs.json"), []byte(`{"type": "string"}`), 0o644))
	must(os.WriteFile(filepath.Join(dir, "in.json"), []byte("{\n  \"$ref\": \"defs.json\"\n}\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "out.json"), []byte("{\n  \"$ref\": \"file://"+filepath.ToSlash(filepath.Join(outside, "s.json"))+"\"\n}\n"), 0o644))
	ws, err := workspace.Open(dir, nil)
	must(err)
	defer ws.Close()
	env := Env{StageDir: dir, Stage: "01-x", Schemas: ws, Resolve: func(p string) (string, error) { return ws.Resolve(dir, p) }}
	answer := write(t, dir, "answer.json", `"text"`)
	res := Run(context.Background(), parseChecks(t, "json-schema in.json"), []Output{answer}, env)
	if !res[0].OK {
		t.Errorf("a reference inside the workspace is not followed: %+v", res[0])
	}
	res = Run(context.Background(), parseChecks(t, "json-schema out.json"), []Output{answer}, env)
	if res[0].OK || len(res[0].Findings) != 1 || !strings.Contains(res[0].Findings[0].Message, "out.json line 2: $ref file://") ||
		!strings.Contains(res[0].Findings[0].Message, "is outside the workspace") {
		t.Errorf("a reference outside is not refused: %+v", res[0])
	}
}
