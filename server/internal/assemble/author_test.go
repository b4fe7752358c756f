package assemble

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// tidePools is a workspace whose author wrote for an agent that reads: a
// CLAUDE.md that only forwards to AGENTS.md, a purpose line under the
// title, an Inputs table with a Why column, files named in sentences, and
// notes to themselves in HTML comments.
const tidePools = `
-- CLAUDE.md --
# Entry

This file only forwards. Read ` + "`AGENTS.md`" + ` beside it and follow it.
-- AGENTS.md --
# Tide pool guide

You write plain guides to tide pools for children.
-- CONTEXT.md --
# Routing
01-survey, then 02-guide.
-- _config/tone.md --
# Tone
Gentle, short sentences.
-- shared/creatures.md --
# Creatures
Anemone, hermit crab, limpet.
-- stages/01-survey/CONTEXT.md --
# Stage 01: Survey

<!-- TODO: ask Ana whether the crab list is final -->
Purpose: list what lives in each pool.

## Inputs

| Source | Path | Why |
|---|---|---|
| Pools | pools.md | The pools we walked on Sunday |
| Tone | ../../_config/tone.md | Keeps the voice gentle |

## Process

Read ` + "`shared/creatures.md`" + ` for the names, and check ` + "`notes/low-tide.md` and `high-tide.md`" + ` before writing.
<!-- the old crab photos are described in ` + "`photos/crabs.md`" + ` -->

## Outputs
- survey.md -> output/
-- stages/01-survey/pools.md --
North pool, south pool.
-- stages/01-survey/notes/low-tide.md --
Low tide at 6.
-- stages/01-survey/notes/high-tide.md --
High tide at noon.
-- stages/01-survey/photos/crabs.md --
Blurry.
`

// The author's Inputs table reaches the model as written, its Why
// column included, followed by icm's list of what it loaded.
func TestTheAuthorsInputsTableReachesTheModel(t *testing.T) {
	dir := wstest.Write(t, tidePools)
	ws, st, c := load(t, dir, "01-survey")
	cx, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	table := "| Tone | ../../_config/tone.md | Keeps the voice gentle |"
	i := strings.Index(cx.User, table)
	if i < 0 {
		t.Fatalf("the user text lacks the author's Inputs row %q:\n%s", table, cx.User)
	}
	if j := strings.Index(cx.User, "Loaded for this stage:"); j < i {
		t.Errorf("icm's list of what it loaded does not follow the author's table:\n%s", cx.User)
	}
}

// The line under the title says what the stage is for: it reaches the
// model even when the contract's other sections are icm's notation.
func TestThePurposeLineReachesTheModel(t *testing.T) {
	dir := wstest.Write(t, tidePools)
	ws, st, c := load(t, dir, "01-survey")
	cx, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cx.User, "Purpose: list what lives in each pool.") {
		t.Errorf("the purpose line is not in the user text:\n%s", cx.User)
	}
}

// HTML comments are the author's notes to themselves: no text of theirs
// is sent, and a file named only in one is no file to read.
func TestCommentsReachNobody(t *testing.T) {
	dir := wstest.Write(t, tidePools)
	ws, st, c := load(t, dir, "01-survey")
	cx, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, note := range []string{"ask Ana", "old crab photos", "photos/crabs.md", "<!--", "-->"} {
		if strings.Contains(cx.System, note) || strings.Contains(cx.User, note) {
			t.Errorf("the assembled text holds %q from a comment:\nSYSTEM\n%s\nUSER\n%s", note, cx.System, cx.User)
		}
	}
}

// A CLAUDE.md that only points to AGENTS.md is followed: the model gets
// the file it points to.
func TestAnEntryFileThatPointsIsFollowed(t *testing.T) {
	dir := wstest.Write(t, tidePools)
	ws, st, c := load(t, dir, "01-survey")
	cx, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cx.System, "You write plain guides to tide pools for children.") {
		t.Errorf("the system text lacks AGENTS.md, which CLAUDE.md points to:\n%s", cx.System)
	}
	if !strings.HasPrefix(cx.System, "# Entry") {
		t.Errorf("the system text does not start with the entry file as written:\n%s", cx.System)
	}
}

// The files the contract names in its sentences are listed with their
// sizes for the model to read: a bare name beside a path is found beside
// it; a file loaded whole is not listed again.
func TestTheFilesTheContractNamesAreListed(t *testing.T) {
	dir := wstest.Write(t, tidePools)
	ws, st, c := load(t, dir, "01-survey")
	cx, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Files you may read",
		"- `shared/creatures.md` (",
		"- `stages/01-survey/notes/low-tide.md` (15 bytes)",
		"- `stages/01-survey/notes/high-tide.md` (",
	} {
		if !strings.Contains(cx.User, want) {
			t.Errorf("the user text lacks %q:\n%s", want, cx.User)
		}
	}
	if _, list, _ := strings.Cut(cx.User, "# Files you may read"); strings.Contains(list, "pools.md") {
		t.Errorf("a file loaded whole is listed to read again:\n%s", cx.User)
	}
	// A model that calls no tools gets what icm loaded, and no list.
	bare, err := Stage(ws, st, c, Options{NoReadTool: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(bare.User, "# Files you may read") || bare.ReadTool {
		t.Errorf("without the read tool the files are still offered:\n%s", bare.User)
	}
}
