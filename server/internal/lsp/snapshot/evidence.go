package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// ToolRef names one tool call of a run's stage: the read-only document
// of what the model was given back.
type ToolRef struct {
	Root, RunID, Stage string
	// Index is the For each item's place (0 for none); Call the call's
	// number within it.
	Index, Call int
}

// Evidence is what the output file rests on, as it is on disk; nil for a
// file that is no stage's output, a stage that never ran, an output that
// is not Markdown, and a buffer whose unsaved text differs from the disk
// (its lines would not match).
func (f *File) Evidence(ctx context.Context) *evidence.Result {
	if f.Contract != nil {
		return nil
	}
	stg, _ := f.outputOf()
	if stg == nil {
		return nil
	}
	ws := f.ws()
	if disk, err := ws.Disk.ReadFile(f.Doc.Path); err != nil || !bytes.Equal(disk, f.Doc.Text) {
		return nil
	}
	results, err := f.o.Session().Reviews().Evidence(ctx, stg.Name)
	if err != nil {
		return nil
	}
	rel := ws.Rel(f.Doc.Path)
	for _, r := range results {
		if r.Path == rel {
			return r
		}
	}
	return nil
}

// unitAt is the unit of res on line (0-based), nil when none is.
func unitAt(res *evidence.Result, line int) *evidence.Unit {
	for i := range res.Units {
		u := &res.Units[i]
		if line+1 >= u.Line && line+1 <= u.EndLine {
			return u
		}
	}
	return nil
}

// evidenceHover says what the unit under pos rests on: its passages with
// their scores, or that none reaches the threshold, and its marks.
func (f *File) evidenceHover(ctx context.Context, pos document.Position) *Hover {
	res := f.Evidence(ctx)
	if res == nil {
		return nil
	}
	u := unitAt(res, pos.Line)
	if u == nil {
		return nil
	}
	var b strings.Builder
	switch u.Status {
	case evidence.Supported:
		parts := make([]string, 0, len(u.Support))
		for _, p := range u.Support {
			parts = append(parts, fmt.Sprintf("%s, %.2f", p.Path, p.Score))
		}
		fmt.Fprintf(&b, "Rests on %s\n", strings.Join(parts, "; "))
	case evidence.Unsupported:
		fmt.Fprintf(&b, "**Unsupported** (%.2f, below %.3g): no passage of the stage's inputs or of what its tools returned holds enough of it\n", u.Score, res.Threshold)
		if len(u.Support) > 0 {
			fmt.Fprintf(&b, "\nNearest: %s, %.2f\n", u.Support[0].Path, u.Support[0].Score)
		}
	case evidence.Unchecked:
		b.WriteString("Not checked: " + strings.Join(res.Limits, "; ") + "\n")
	}
	for _, m := range u.Marks {
		fmt.Fprintf(&b, "\n- %s: %s", session.MarkWords(m.Kind), m.Text)
	}
	if b.Len() == 0 {
		return nil
	}
	if len(u.Support) > 0 {
		b.WriteString("\n\nGo to Definition opens the passage.")
	}
	return &Hover{Markdown: strings.TrimRight(b.String(), "\n")}
}

// evidenceDefinition is where the unit under pos rests: its best passage,
// in the input file, or in the read-only document of the tool call that
// returned it (Location.Tool).
func (f *File) evidenceDefinition(ctx context.Context, pos document.Position) *Location {
	res := f.Evidence(ctx)
	if res == nil {
		return nil
	}
	u := unitAt(res, pos.Line)
	if u == nil || len(u.Support) == 0 {
		return nil
	}
	p := u.Support[0]
	ws := f.ws()
	if p.SourceKind == evidence.SourceInput {
		abs := ws.Abs(p.Source)
		src, err := ws.Disk.ReadFile(abs)
		if err != nil {
			return nil
		}
		loc := &Location{Path: abs}
		if start, end := p.Range.Start, p.Range.End; end <= len(src) && start <= end {
			// The passage as a person sees it: from its first word.
			for start < end && strings.ContainsRune(" \t\r\n", rune(src[start])) {
				start++
			}
			loc.Mapper, loc.Range = document.NewMapper(src), document.Range{Start: start, End: end}
		}
		return loc
	}
	stg, _ := f.outputOf()
	rec, err := state.ReadRecord(ws.Disk, stg.Dir)
	if err != nil || rec == nil {
		return nil
	}
	idx, call, ok := strings.Cut(p.CallID, "/")
	i, err1 := strconv.Atoi(idx)
	c, err2 := strconv.Atoi(call)
	if !ok || err1 != nil || err2 != nil {
		return nil
	}
	return &Location{Path: filepath.Join(ws.Root, stg.Name), Tool: &ToolRef{Root: ws.Root, RunID: rec.RunID, Stage: stg.Name, Index: i, Call: c}}
}
