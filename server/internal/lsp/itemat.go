package lsp

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
)

// itemRef is what icm.itemAt answers: the For each item a line of an
// open output is in.
type itemRef struct {
	Workspace string `json:"workspace"`
	Stage     string `json:"stage"`
	Item      int    `json:"item"`
	Items     int    `json:"items"`
	Title     string `json:"title"`
}

// itemAt runs icm.itemAt: the For each item whose section of the open
// output {uri} holds {line}, so the editor re-runs the item the cursor
// is in (its palette's Re-run This Item).
func itemAt(_ context.Context, e *env, args commandArgs) (any, error) {
	if args.URI == "" {
		return nil, fault.InvalidRequest(cmdItemAt+" needs a uri", "pass {uri, line}: an open output file and a 0-based line")
	}
	f, err := e.file(args.URI)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, fault.NotFound(fmt.Sprintf("%s is in no icm workspace", args.URI), "open the output of a For each stage and put the cursor in one of its items")
	}
	defer f.Release()
	r, err := f.ItemAt(args.Line)
	if err != nil {
		return nil, err
	}
	return itemRef{Workspace: r.Workspace, Stage: r.Stage, Item: r.Item, Items: r.Items, Title: r.Title}, nil
}
