package snapshot

import (
	"context"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/testcase"
)

// The answers in a stage's test case files.

// caseHover explains the case element under the cursor; on the title it
// adds how the case did in the last saved test run.
func (f *File) caseHover(cf *caseFile, pos document.Position) (*Hover, error) {
	off, err := offset(f.Doc.Mapper(), pos)
	if err != nil {
		return nil, err
	}
	text, rng, ok := testcase.Hover(f.ws(), cf.stage, cf.con, cf.c, off)
	if !ok {
		return nil, nil
	}
	if rng == cf.c.TitleRange {
		text += lastRunOf(f.o.sess, cf.c.ID)
	}
	return &Hover{Markdown: text, Range: &rng}, nil
}

// lastRunOf sums up a case in the newest saved test run that ran it.
func lastRunOf(sess *session.Session, caseID string) string {
	rep, ok := sess.Tests().LastRunOf(caseID)
	if !ok {
		return "\n\nNot run yet: `icm test " + caseID + "`, or the Test Explorer."
	}
	var cells []string
	for _, row := range rep.Matrix {
		if row.Case != caseID {
			continue
		}
		cell := fmt.Sprintf("%s %s", row.Model, row.Rate())
		if row.FirstFailure != "" {
			cell += " (" + clipText(row.FirstFailure, 120) + ")"
		}
		cells = append(cells, cell)
	}
	return fmt.Sprintf("\n\nLast test run (%s): %s.", rep.RunID, strings.Join(cells, "; "))
}

// caseCompletion offers, in a case file, the sections, the files the
// stage reads as stand-in targets, the files beside the case, the stage's
// outputs and the expectation forms (as snippets).
func (f *File) caseCompletion(cf *caseFile, pos document.Position) (*Completion, error) {
	off, err := offset(f.Doc.Mapper(), pos)
	if err != nil {
		return nil, err
	}
	out := []Item{}
	for _, sg := range testcase.Complete(f.ws(), cf.stage, cf.con, cf.c, f.Doc.Text, off) {
		out = append(out, Item{Label: sg.Label, Kind: caseKind(sg.Kind), Detail: sg.Detail, Doc: sg.Doc, Insert: sg.Insert,
			Range: document.Range{Start: sg.From, End: off}, Snippet: sg.Snippet})
	}
	return items(out), nil
}

func caseKind(kind string) ItemKind {
	switch kind {
	case "section":
		return KindModule
	case "keyword":
		return KindKeyword
	case "input", "output", "file":
		return KindFile
	}
	return KindText
}

// Cases are a workspace's test cases as a snapshot found them, and the
// models its profiles offer.
type Cases struct {
	Models []string
	Cases  []Case
}

// Case is one test case, selected as `icm test` selects it (with the
// errors that keep it from running).
type Case struct {
	*report.TestCase
	// Line is the 0-based line of the case's title in its file.
	Line int
}

// Cases lists the workspace's test cases from the snapshot that includes
// the buffers.
func (w *Workspace) Cases(ctx context.Context) (*Cases, error) {
	snap, err := w.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer snap.Release()
	sess := snap.o.sess
	sel, err := sess.Tests().Cases(snap.report, session.TestFilter{})
	if err != nil {
		return nil, err
	}
	out := &Cases{Models: sess.Tests().Models()}
	for _, sl := range sel {
		c := Case{TestCase: sl}
		if pos, err := snap.mapper(sl.Case.File).Position(sl.Case.TitleRange.Start); err == nil {
			c.Line = pos.Line
		}
		out.Cases = append(out.Cases, c)
	}
	return out, nil
}
