package snapshot

import (
	"fmt"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/fault"
)

// ItemRef names one For each item of a stage's output.
type ItemRef struct {
	Workspace, Stage string
	// Item is the item's number (from 1) of Items; Title its heading.
	Item, Items int
	Title       string
}

// ItemAt is the For each item whose section of this output holds line
// (0-based) as the buffer reads now: an item runs from its heading to the
// next item's. It is what a person means by "re-run this item" with the
// cursor in it; a line before the first item, or a file that is no For
// each output, is a not-found fault that says what to do.
func (f *File) ItemAt(line int) (ItemRef, error) {
	name := filepath.Base(f.Doc.Path)
	stg, c := f.outputOf()
	if stg == nil || c.ForEach == nil {
		return ItemRef{}, fault.NotFound(fmt.Sprintf("%s is not an output of a For each stage", name),
			"open the output of a For each stage and put the cursor in one of its items")
	}
	spans := f.o.sess.Reviews().ItemSpans(f.Doc.Path, string(f.Doc.Text))
	if len(spans) == 0 {
		return ItemRef{}, fault.NotFound(fmt.Sprintf("icm keeps no items of %s's last run for %s", stg.Name, name),
			"run the stage; each of its items can then be run again alone")
	}
	off, err := f.Doc.Mapper().Offset(document.Position{Line: line})
	if err != nil {
		return ItemRef{}, fault.InvalidRequest(fmt.Sprintf("%s has no line %d", name, line+1), "pass a 0-based line of the open document")
	}
	found := -1
	for i, sp := range spans {
		if sp.Found && sp.Start <= off {
			found = i
		}
	}
	if found < 0 {
		return ItemRef{}, fault.NotFound(fmt.Sprintf("line %d of %s is in none of %s's items", line+1, name, stg.Name),
			"put the cursor under an item's heading")
	}
	sp := spans[found]
	return ItemRef{Workspace: f.ws().Root, Stage: stg.Name, Item: sp.Index, Items: len(spans), Title: sp.Title}, nil
}
