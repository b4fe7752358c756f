package readtool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/golden"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// orchard names a file and a folder in its Process, loads one input, and
// sits beside files it never names.
const orchard = `
-- CLAUDE.md --
# Identity
You keep an orchard's records.
-- stages/01-harvest/CONTEXT.md --
# Stage: 01-harvest

## Inputs
- Layer 4 (working): rows.md

## Process
Count the harvest row by row. The varieties are in ` + "`_config/varieties.md`" + `; the
pickers' notes are in ` + "`notes/`" + `.

## Outputs
- harvest.md -> output/
-- stages/01-harvest/rows.md --
Row 1, row 2.
-- stages/01-harvest/notes/monday.md --
Pears on row 2.
-- stages/01-harvest/notes/tuesday.md --
Rain.
-- stages/01-harvest/notes/.draft.md --
unfinished
-- _config/varieties.md --
Conference, Comice.
-- _config/prices.md --
Not for the model.
-- .env --
SECRET=1
`

func setUp(t *testing.T) (*workspace.Workspace, *workspace.Stage, *assemble.Context) {
	t.Helper()
	dir := wstest.Write(t, orchard)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ws.Stage("01-harvest")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(st.Contract)
	if err != nil {
		t.Fatal(err)
	}
	cx, err := assemble.Stage(ws, st, contract.Parse(st.Contract, src), assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ws, st, cx
}

// The tools' definitions are prompts for small models: a change to them
// is a reviewed diff of testdata/tools.json (go test -update rewrites it).
func TestDefinitionsSnapshot(t *testing.T) {
	_, _, cx := setUp(t)
	got, err := json.MarshalIndent(Definitions(cx), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "tools.json"), append(got, '\n'))
	if Definitions(&assemble.Context{}) != nil {
		t.Error("a context without the read tool offers read tools")
	}
}

// What the contract names is read, by the path the prompt lists or as the
// contract writes it, and a folder it names is listed and read from;
// anything else is refused, saying what may be read.
func TestReaderReadsWhatTheContractNames(t *testing.T) {
	ws, st, cx := setUp(t)
	r := NewReader(ws, st, cx.Readable, false)
	for p, want := range map[string]string{
		"_config/varieties.md":               "Conference, Comice.\n",
		"../../_config/varieties.md":         "Conference, Comice.\n",
		"stages/01-harvest/notes/monday.md":  "Pears on row 2.\n",
		"notes/tuesday.md":                   "Rain.\n",
		"`stages/01-harvest/rows.md`":        "Row 1, row 2.\n",
		"stages/01-harvest/notes/monday.md/": "Pears on row 2.\n",
	} {
		f, err := r.Read(p)
		if err != nil || f.Text != want {
			t.Errorf("Read(%q) = %v, %v; want %q", p, f, err, want)
		}
	}
	list, err := r.List("stages/01-harvest/notes/")
	if err != nil || !strings.Contains(list, "- stages/01-harvest/notes/monday.md (16 B)") || strings.Contains(list, ".draft") {
		t.Errorf("List = %q, %v", list, err)
	}
	for p, want := range map[string]string{
		"_config/prices.md":                   "is not a file this stage's contract names",
		".env":                                "hidden",
		"stages/01-harvest/notes/.draft.md":   "hidden",
		"stages/01-harvest/notes":             "is a folder",
		"_config/missing.md":                  "does not exist",
		"../../../../../etc/passwd":           "Not read",
		"stages/01-harvest/CONTEXT.md":        "is not a file this stage's contract names",
		"stages/01-harvest/output/harvest.md": "does not exist",
	} {
		_, err := r.Read(p)
		var ref *Refusal
		if err == nil || !strings.Contains(err.Error(), want) || !asRefusal(err, &ref) {
			t.Errorf("Read(%q) = %v, want a refusal saying %q", p, err, want)
		}
	}
	_, err = r.Read("_config/prices.md")
	if !strings.Contains(err.Error(), "_config/varieties.md") || !strings.Contains(err.Error(), "stages/01-harvest/notes/") {
		t.Errorf("the refusal does not say what may be read: %v", err)
	}
	if _, err := r.List("_config"); err == nil {
		t.Error("a folder the contract does not name was listed")
	}
}

// The person may let stages read any file of the workspace: hidden
// files stay unread.
func TestReaderWithTheWholeWorkspace(t *testing.T) {
	ws, st, cx := setUp(t)
	r := NewReader(ws, st, cx.Readable, true)
	if f, err := r.Read("_config/prices.md"); err != nil || f.Text != "Not for the model.\n" {
		t.Errorf("Read = %v, %v", f, err)
	}
	if _, err := r.Read(".env"); err == nil {
		t.Error("a hidden file was read")
	}
	if list, err := r.List("_config"); err != nil || !strings.Contains(list, "_config/prices.md") {
		t.Errorf("List = %q, %v", list, err)
	}
}

func asRefusal(err error, ref **Refusal) bool {
	r, ok := err.(*Refusal)
	*ref = r
	return ok
}
