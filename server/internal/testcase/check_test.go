package testcase

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

const caseWorkspace = `
-- CLAUDE.md --
# Identity
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): input.md
- Layer 3 (reference): ../../_config/rules.md

## Process
Write.

## Outputs
- a.md -> output/
- b.json -> output/

## Verify
- non-empty
-- pipeline/01-a/input.md --
# Idea
-- _config/rules.md --
# Rules
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Inputs
- Layer 4 (working): ../01-a/output/a.md

## For each
part in ../01-a/output/a.md

## Process
Go on.

## Outputs
- b.md -> output/
-- pipeline/01-a/tests/good.md --
# Case: good

## Inputs
- input.md <- shared/idea.md
- ../../_config/rules.md <- shared/rules.md

## Expect
- contains "x"

### b.json
- json-schema schema.json
-- pipeline/01-a/tests/shared/idea.md --
# An idea kept with the shared stand-ins (a folder without CASE.md is not a case)
-- pipeline/01-a/tests/README.md --
About these cases.
-- pipeline/01-a/tests/shared/rules.md --
# Rules for the case
-- pipeline/01-a/schema.json --
{"type": "object"}
-- pipeline/01-a/tests/folder/CASE.md --
# Case: in a folder

## Inputs
- input.md <- idea.md
- notes.md <- idea.md
- ../../../../x.md <- idea.md

## Expect
- contains "y"

### c.md
- non-empty
- json-schema nowhere.json
-- pipeline/01-a/tests/folder/idea.md --
# A folder's own idea
-- pipeline/01-a/tests/shared/not-a-case.txt --
x
-- pipeline/02-b/tests/uncovered.md --
# Case: uncovered

## Expect
- non-empty
`

func TestRefsAndLoad(t *testing.T) {
	ws := open(t)
	st, _ := ws.Stage("01-a")
	var names []string
	for _, r := range Refs(ws, st) {
		names = append(names, r.Name)
	}
	if strings.Join(names, ",") != "folder,good" {
		t.Errorf("cases %v, want folder, good (README.md and a folder without CASE.md are not cases)", names)
	}
	cases := Load(ws, st)
	if len(cases) != 2 || !cases[0].Folder || cases[0].Dir != filepath.Join(st.Dir, "tests", "folder") || cases[1].Dir != filepath.Join(st.Dir, "tests") {
		t.Fatalf("loaded %+v", cases)
	}
	for _, p := range []string{"tests/good.md", "tests/folder/CASE.md"} {
		if s, ok := IsCaseFile(ws, filepath.Join(st.Dir, p)); !ok || s != st {
			t.Errorf("%s is not seen as a case file", p)
		}
	}
	for _, p := range []string{"tests/README.md", "CONTEXT.md", "tests/shared/rules.md", "tests/folder/idea.md", "tests/shared/idea.md"} {
		if _, ok := IsCaseFile(ws, filepath.Join(st.Dir, p)); ok {
			t.Errorf("%s is taken for a case file", p)
		}
	}
}

func open(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(wstest.Write(t, caseWorkspace), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func checkOf(t *testing.T, ws *workspace.Workspace, stage, name string) (*Case, []contract.Finding) {
	t.Helper()
	st, err := ws.Stage(stage)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(st.Contract)
	con := contract.Parse(st.Contract, src)
	for _, c := range Load(ws, st) {
		if c.Name == name {
			return c, Check(ws, st, con, c)
		}
	}
	t.Fatalf("no case %s", name)
	return nil, nil
}

func TestCheckWithTheWorkspace(t *testing.T) {
	ws := open(t)
	if c, fs := checkOf(t, ws, "01-a", "good"); len(fs) != 0 || len(c.Findings) != 0 {
		t.Errorf("a good case has findings: %v %v", c.Findings, fs)
	}
	c, fs := checkOf(t, ws, "01-a", "folder")
	src, _ := os.ReadFile(c.File)
	m := document.NewMapper(src)
	type got struct {
		code string
		line int
	}
	var all []got
	for _, f := range fs {
		line, _, _ := m.LineCol(f.Range.Start)
		all = append(all, got{f.Code, line})
	}
	want := []got{
		{CodeStandInUnused, 5},
		{CodePathEscape, 6},
		{CodeUnknownOutput, 12},
		{CodeUnknownOutput, 13},
		{CodeFileMissing, 13},
	}
	if len(all) != len(want) {
		t.Fatalf("findings %v, want %v", fs, want)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("finding %d: %v, want %v (%s)", i, all[i], want[i], fs[i].Message)
		}
	}
	if !strings.Contains(fs[0].Message, "it reads ../../_config/rules.md, input.md") {
		t.Errorf("the unused stand-in does not list what the stage reads: %s", fs[0].Message)
	}
	_, fs = checkOf(t, ws, "02-b", "uncovered")
	if len(fs) != 1 || fs[0].Code != CodeInputUncovered || !strings.Contains(fs[0].Message, "../01-a/output/a.md") {
		t.Errorf("an upstream output with no stand-in: %v", fs)
	}
}

func TestStandInMissingAndResolveOrder(t *testing.T) {
	ws := open(t)
	st, _ := ws.Stage("01-a")
	p := filepath.Join(st.Dir, "tests", "good.md")
	os.WriteFile(p, []byte("# Case: g\n\n## Inputs\n- input.md <- gone.md\n\n## Expect\n- json-schema schema.json\n"), 0o644)
	c, fs := checkOf(t, ws, "01-a", "good")
	if len(fs) != 1 || fs[0].Code != CodeStandInMissing || !strings.Contains(fs[0].Message, "gone.md does not exist") {
		t.Fatalf("findings %v", fs)
	}
	// schema.json is not next to the case but in the stage folder.
	abs, err := Resolve(ws, st, c, "schema.json")
	if err != nil || abs != filepath.Join(st.Dir, "schema.json") {
		t.Errorf("resolve: %s %v", abs, err)
	}
	// A file next to the case wins over one in the stage folder.
	os.WriteFile(filepath.Join(st.Dir, "tests", "schema.json"), []byte("{}"), 0o644)
	if abs, _ := Resolve(ws, st, c, "schema.json"); abs != filepath.Join(st.Dir, "tests", "schema.json") {
		t.Errorf("resolve prefers %s", abs)
	}
}
