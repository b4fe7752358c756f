package trust

import (
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// caseParts are the `run:` expectations of every stage's test cases,
// read from the files on disk (what `icm test` and the editor's Test
// Explorer run).
func caseParts(l *lister) Parts {
	var ps Parts
	for _, st := range l.ws.Stages {
		if st.Escape != nil {
			continue
		}
		for _, ref := range testcase.Refs(l.ws, st) {
			src, err := l.ws.Disk.ReadFile(ref.File)
			if err != nil || !namesAny(src, "run:") {
				continue // an unreadable case cannot run; one with no run: names nothing
			}
			ps = append(ps, l.caseChecks(st, testcase.Parse(ref, src))...)
		}
	}
	return ps
}

// caseChecks are the parts a parsed test case's `run:` expectations
// are: each command as written, where the case names it
// ("pipeline/01-a/tests/short.md ## Expect": the section, not the line,
// so an edit above it keeps the grant), pinned as run in the stage folder.
func (l *lister) caseChecks(st *workspace.Stage, c *testcase.Case) Parts {
	var ps Parts
	where := l.ws.Rel(c.File) + " ## Expect"
	for _, e := range c.Expect {
		if e.Check == nil || e.Check.Kind != contract.CheckRun || strings.TrimSpace(e.Check.Arg) == "" {
			continue
		}
		ps = append(ps, Part{Kind: CaseCheck, Where: where, Value: e.Check.Arg, Pins: l.pins.shell(st.Dir, e.Check.Arg)})
	}
	return ps
}
