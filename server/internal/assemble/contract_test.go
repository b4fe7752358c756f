package assemble

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/golden"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// seedStyle is a workspace in the seed's notation: list inputs, a Tools
// line, Process as the only instruction section, one plain-name output.
const seedStyle = `
-- CLAUDE.md --
# Who you are
You turn a hobby into a weekend plan.
-- CONTEXT.md --
# Routing
01-plan, then 02-shop.
-- _config/tone.md --
# Tone

## Voice
Warm and brief.

## Avoid
Jargon.
-- pipeline/01-plan/CONTEXT.md --
# Stage: 01-plan

## Inputs
- Layer 4 (working): hobby.md
- Layer 3 (reference): ../../_config/tone.md#Voice

## Tools
none

## Process
Read the hobby and plan two days around it, one list per day.

Keep each day to five items.

## Outputs
- plan.md -> output/

## Verify
- non-empty
-- pipeline/01-plan/hobby.md --
Birdwatching at the lake.
`

// A seed-style contract assembles byte-identically to what icm sent
// before it read the whole contract: the golden file was written by the
// loader that sent the Process alone.
func TestSeedStyleContractAssemblesAsBefore(t *testing.T) {
	dir := wstest.Write(t, seedStyle)
	ws, st, c := load(t, dir, "01-plan")
	cx, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/seed-style.txt", []byte("SYSTEM\n"+cx.System+"USER\n"+cx.User))
}

// The sample workspaces' contexts, stage by stage: what changes in them is
// a reviewed diff.
func TestSampleContexts(t *testing.T) {
	for _, name := range []string{"course-research", "course-rust", "tech-article"} {
		dir := wstest.Copy(t, name)
		ws0, err := workspace.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, e := range ws0.Stages {
			ws, st, c := load(t, dir, e.Name)
			cx, err := Stage(ws, st, c, Options{AllowMissing: true})
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString("=== " + e.Name + " USER\n" + cx.User)
		}
		golden.Check(t, "testdata/samples-"+name+".txt", []byte(b.String()))
	}
}

// templateStyle is a contract in the ICM template's notation with every
// kind of section: the author's instructions, icm's own sections, Verify
// with prose and a check, a Script that is text.
const templateStyle = `
-- CLAUDE.md --
# Who you are
You write field guides.
-- _config/style.md --
# Style

## Voice
Short sentences.

## Other
Not loaded.
-- stages/01-guide/CONTEXT.md --
# Stage 01: Guide

Turn the notes into a field guide.

## Purpose

A guide a walker can read on the trail.

## Inputs

| Source | File/Location | Section/Scope | Why |
|--------|---------------|---------------|-----|
| Notes | notes.md | Full file | What was seen |
| Style | ../../_config/style.md | "Voice" | How it reads |

## Tools
none

## Process

1. Group the notes by habitat.
2. Write one entry per species.

## Model
temperature: 0.3

## Checkpoints

| After step | Agent presents | Human decides |
|---|---|---|
| 1 | The habitats | Which to keep |

## Audit

- [ ] Every species has a habitat

## Verify
- non-empty
- Each entry names where it was seen.

## Script

Open on the lake at dawn, then cut to the heron.

## What this stage does NOT do

It does not draw maps.

## Review Gate

- The names are spelled as in the notes.

## Outputs

| Artifact | Location | Format |
|---|---|---|
| Guide | output/[area-slug]-guide.md | Markdown |
-- stages/01-guide/notes.md --
A heron at the lake.
`

// A contract with more than its Process reaches the model whole, in its
// author's order: icm's own sections left out, the Verify check left out
// and its prose kept, a Script in words kept, Inputs as written followed
// by what was loaded, Outputs with the files icm accepts; the part is
// labelled Contract.
func TestWholeContractInOrder(t *testing.T) {
	dir := wstest.Write(t, templateStyle)
	ws, st, c := load(t, dir, "01-guide")
	cx, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"# Stage 01: Guide\n\nTurn the notes into a field guide.",
		"## Purpose\n\nA guide a walker can read on the trail.",
		"## Inputs\n\n| Source | File/Location | Section/Scope | Why |",
		"| Notes | notes.md | Full file | What was seen |",
		"Loaded for this stage:\n- `stages/01-guide/notes.md`",
		"- `_config/style.md`, section Voice (layer 3, reference, in the system text; 25 bytes)",
		"## Process\n\n1. Group the notes by habitat.",
		"## Checkpoints\n\n| After step | Agent presents | Human decides |",
		"## Audit\n\n- [ ] Every species has a habitat",
		"## Verify\n\n- Each entry names where it was seen.",
		"## Script\n\nOpen on the lake at dawn",
		"## What this stage does NOT do\n\nIt does not draw maps.",
		"## Review Gate\n\n- The names are spelled as in the notes.",
		"## Outputs\n\n| Artifact | Location | Format |",
		"The files icm accepts:\n- output/[area-slug]-guide.md (fill in [area-slug])",
		"with the write_output tool",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(cx.User[at:], w)
		if i < 0 {
			t.Fatalf("the user text lacks %q after offset %d (or has it out of order):\n%s", w, at, cx.User)
		}
		at += i + len(w)
	}
	for _, gone := range []string{"## Tools", "## Model", "temperature: 0.3", "- non-empty"} {
		if strings.Contains(cx.User, gone) {
			t.Errorf("the user text holds %q, which icm consumes:\n%s", gone, cx.User)
		}
	}
	labels := []string{}
	for _, p := range cx.Parts {
		labels = append(labels, p.Role+" "+p.Label)
	}
	if got := strings.Join(labels, ", "); got != "system CLAUDE.md, system stages/01-guide/notes.md, system _config/style.md#Voice, user Contract" {
		t.Errorf("parts = %s", got)
	}
	if cx.UserTokens == 0 || cx.Total != cx.SystemTokens+cx.UserTokens {
		t.Errorf("counts: %+v", cx)
	}
}

// The plain fallback's Outputs section says to answer with JSON or with
// path: lines, as the run asks.
func TestWholeContractWriteModes(t *testing.T) {
	dir := wstest.Write(t, templateStyle)
	ws, st, c := load(t, dir, "01-guide")
	for mode, want := range map[string]string{"json": "Answer with one JSON object", "plain": "a line `path: output/NAME`"} {
		cx, err := Stage(ws, st, c, Options{WriteMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(cx.User, want) || strings.Contains(cx.User, "write_output tool") {
			t.Errorf("%s: the Outputs section does not say %q:\n%s", mode, want, cx.User)
		}
	}
}
