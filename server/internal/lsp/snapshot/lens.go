package snapshot

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// Lenses puts on a contract's title: Run (or, untrusted, Trust), Test,
// Approve, the token count and the state; on a stage's output file: the
// state, Approve, Compare and Re-run (and on each item of a For each
// output its state and Re-run this item); and on a file that a later
// stage loops over, how many items that stage will run (so a person
// trimming an outline sees the effect before drafting). The state reads
// as it does in the Pipeline view and `icm status`: both come from the
// same derived face. It waits for the snapshot that includes the buffer.
func (f *File) Lenses(ctx context.Context) ([]Lens, error) {
	snap, err := f.w.Snapshot(ctx)
	defer snap.Release()
	if err != nil {
		return nil, err
	}
	if f.Contract == nil {
		out := f.outputLenses(ctx)
		return append(out, f.forEachSourceLenses(snap)...), nil
	}
	pos, err := f.Doc.Mapper().Position(f.Contract.TitleRange.Start)
	if err != nil {
		return nil, nil
	}
	on := Target{Workspace: f.ws().Root, Stage: f.Stage.Name}
	lens := func(title string, verb Verb) Lens {
		return Lens{Line: pos.Line, Offer: Offer{Title: title, Verb: verb, On: on}}
	}
	var out []Lens
	if f.o.sess.Trust().Allowed() {
		out = append(out, lens("▶ Run stage", VerbRunStage))
		if sr := snap.stageOfContract(f.Doc.Path); sr != nil {
			if l, ok := testLens(sr); ok {
				out = append(out, lens(l, VerbTest))
			}
		}
	} else {
		// No run: the workspace names what it would run, contact or
		// read, and its person has not trusted it. The lens says so and
		// lists what trust covers.
		out = append(out, Lens{Line: pos.Line, Offer: Offer{Title: "Trust this workspace to run it", Verb: VerbTrust, On: Target{Workspace: f.ws().Root}}})
	}
	row := f.w.row(ctx, f.Stage.Name)
	if row != nil && row.Status == string(state.Awaiting) {
		out = append(out, lens("✓ Approve", VerbApprove))
	}
	if sr := snap.stageOfContract(f.Doc.Path); sr != nil && sr.Context != nil {
		title := approxTokens(sr.Context.Total)
		if n := snap.counts[f.Stage.Name]; n != nil && len(n.Items) > 1 {
			title = callsText(n)
		}
		out = append(out, lens(title, VerbProbe))
	}
	if row != nil {
		out = append(out, lens(row.Face.Text(), VerbStatus))
	}
	return out, nil
}

// testLens is "▶ Test (3 cases)" on a contract whose stage has cases:
// it runs them (in VS Code, through the Test Explorer).
func testLens(sr *check.StageReport) (string, bool) {
	switch n := len(sr.Cases); n {
	case 0:
		return "", false
	case 1:
		return "▶ Test (1 case)", true
	default:
		return fmt.Sprintf("▶ Test (%d cases)", n), true
	}
}

// forEachSourceLenses finds the stages that loop over this file.
func (f *File) forEachSourceLenses(snap *Snapshot) []Lens {
	var out []Lens
	items := -1
	for _, sr := range snap.report.Stages {
		if sr.Contract == nil || sr.Contract.ForEach == nil {
			continue
		}
		abs, err := snap.view.Resolve(sr.Stage.Dir, sr.Contract.ForEach.Path)
		if err != nil || abs != f.Doc.Path {
			continue
		}
		if items < 0 {
			items = len(check.Items(f.Doc.Text))
		}
		title := fmt.Sprintf("%d items for %s", items, sr.Stage.Name)
		if items == 1 {
			title = fmt.Sprintf("1 item for %s", sr.Stage.Name)
		}
		on := Target{Workspace: snap.view.Root, Stage: sr.Stage.Name}
		if items > 0 {
			on.Item = 1 // the probe shows the first item's context
		}
		out = append(out, Lens{Offer: Offer{Title: title, Verb: VerbProbe, On: on}})
	}
	return out
}

// outputLenses are the review lenses on a stage's output file: its state
// in words, Approve when it awaits review, Compare with the model's version
// when icm kept one, Re-run; and in a For each output, on each item's
// section, Re-run this item with the item's own state.
func (f *File) outputLenses(ctx context.Context) []Lens {
	ws := f.ws()
	stg := ws.StageOf(f.Doc.Path)
	if stg == nil || stg.Contract == f.Doc.Path {
		return nil
	}
	src, err := ws.Files.ReadFile(stg.Contract)
	if err != nil {
		return nil
	}
	c := contract.ParseWith(stg.Contract, src, contract.Options{Vars: ws.Vars})
	rel := ws.Rel(f.Doc.Path)
	isOutput := false
	for _, o := range state.OutputPaths(ws, stg, c) {
		if o == rel {
			isOutput = true
		}
	}
	if !isOutput {
		return nil
	}
	row := f.w.row(ctx, stg.Name)
	if row == nil {
		return nil
	}
	on := Target{Workspace: ws.Root, Stage: stg.Name, Path: f.Doc.Path}
	top := func(title string, verb Verb) Lens { return Lens{Offer: Offer{Title: title, Verb: verb, On: on}} }
	out := []Lens{top(row.Face.Text(), VerbStatus)}
	if row.Status == string(state.Awaiting) {
		out = append(out, top("✓ Approve", VerbApprove))
	}
	sess := f.o.sess
	hasModel := sess.HasModelVersion(f.Doc.Path)
	if hasModel {
		out = append(out, top("⇄ Compare with the model's version", VerbCompare))
	}
	if row.Status != StatusRunning {
		out = append(out, top("▶ Re-run", VerbRunStage))
	}
	if c.ForEach == nil || !hasModel {
		return out
	}
	spans := sess.ItemSpans(f.Doc.Path, string(f.Doc.Text))
	m := f.Doc.Mapper()
	for _, sp := range spans {
		if !sp.Found {
			continue
		}
		pos, err := m.Position(sp.Start)
		if err != nil {
			continue
		}
		title := sp.Title
		item := Target{Workspace: ws.Root, Stage: stg.Name, Item: sp.Index, ItemTitle: &title}
		// The item's state first, then its action, as the file's own row
		// reads: the first item shares the file's line, and "▶ Re-run |
		// ▶ Re-run this item" side by side left a person guessing which
		// re-ran what.
		out = append(out, Lens{Line: pos.Line, Offer: Offer{Title: itemWords(sp, len(spans)), Verb: VerbStatus, On: item}})
		if row.Status != StatusRunning {
			out = append(out, Lens{Line: pos.Line, Offer: Offer{Title: "▶ Re-run this item", Verb: VerbRerunItem, On: item}})
		}
	}
	return out
}

// itemWords is an item's state in its lens: "item 2 of 4 · edited".
func itemWords(sp session.ItemSpan, n int) string {
	words := "as the model wrote it"
	if sp.Edited {
		words = "edited"
	}
	return fmt.Sprintf("item %d of %d · %s", sp.Index, n, words)
}
