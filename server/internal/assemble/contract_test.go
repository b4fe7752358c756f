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
