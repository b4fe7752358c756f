package snapshot

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Lenses are at most two short lenses a line (three on a For each
// output's first line), so that none is cut off in a narrow window: an
// action and the state, which holds the line's other offers (More, a
// menu under it) and the state in full (Full, its hover). On a
// contract's title: Approve when it awaits review, else Run (or,
// untrusted, Trust), and the state with the token count (Test, the
// assembled context and the rest under it). On a stage's output file:
// the state (Approve, Compare, Re-run under it) and Approve or Re-run; on
// each item's heading in a For each output its state and Re-run item N
// (the first item's heading is the file's line: its state goes under the
// file's state, and its Re-run is that line's third, short lens); and on
// a file that a later stage loops over, how many items that stage will
// run (so a person trimming an outline sees the effect before drafting),
// beside the state when the file is an output too. The state reads as it
// does in the Pipeline view and `icm status`: both come from the same
// derived face. It waits for the snapshot that includes the buffer.
func (f *File) Lenses(ctx context.Context) ([]Lens, error) {
	snap, err := f.w.Snapshot(ctx)
	defer snap.Release()
	if err != nil {
		return nil, err
	}
	if f.Contract == nil {
		return f.outputLenses(ctx, f.forEachSourceLenses(snap)), nil
	}
	pos, err := f.Doc.Mapper().Position(f.Contract.TitleRange.Start)
	if err != nil {
		return nil, nil
	}
	on := Target{Workspace: f.ws().Root, Stage: f.Stage.Name}
	offer := func(title string, verb Verb) Offer { return Offer{Title: title, Verb: verb, On: on} }
	row := f.w.row(ctx, f.Stage.Name)
	awaiting := row != nil && row.Status == string(state.Awaiting)
	var primary Offer
	var more []Offer
	if f.o.sess.Trust().Decision().Allowed() {
		run := offer("▶ Run stage", VerbRunStage)
		primary = run
		if awaiting {
			primary = offer("✓ Approve", VerbApprove)
			more = append(more, primary, run)
		} else {
			more = append(more, run)
		}
		if sr := snap.stageOfContract(f.Doc.Path); sr != nil {
			if l, ok := testLens(sr); ok {
				more = append(more, offer(l, VerbTest))
			}
		}
	} else {
		// No run: the workspace names what it would run, contact or
		// read, and its person has not trusted it. The lens says so and
		// lists what trust covers.
		primary = Offer{Title: "Trust this workspace to run it", Verb: VerbTrust, On: Target{Workspace: f.ws().Root}}
		more = append(more, primary)
		if awaiting {
			more = append(more, offer("✓ Approve", VerbApprove))
		}
	}
	tokens := ""
	if sr := snap.stageOfContract(f.Doc.Path); sr != nil && sr.Context != nil {
		tokens = contextWords(sr, snap.counts[f.Stage.Name])
		more = append(more, offer("Show the assembled context ("+tokens+")", VerbProbe))
	}
	out := []Lens{{Line: pos.Line, Offer: primary}}
	if row != nil {
		st := offer(joinWords(row.Face.Label, tokens), VerbStatus)
		st.Full, st.More = joinWords(row.Face.Text(), tokens), more
		out = append(out, Lens{Line: pos.Line, Offer: st})
	} else if tokens != "" {
		out = append(out, Lens{Line: pos.Line, Offer: offer(tokens, VerbProbe)})
	}
	return out, nil
}

// joinWords is a and b with a middle dot between, either left out when
// empty: "pending · ~819 tokens".
func joinWords(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " · " + b
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

// outputLenses are the review lenses on a stage's output file (see
// Lenses), with sources (the For each source lenses of the file) beside
// the state on the first line, or on their own when the file is no
// stage's output.
func (f *File) outputLenses(ctx context.Context, sources []Lens) []Lens {
	stg, c := f.outputOf()
	if stg == nil {
		return sources
	}
	ws := f.ws()
	row := f.w.row(ctx, stg.Name)
	if row == nil {
		return sources
	}
	on := Target{Workspace: ws.Root, Stage: stg.Name, Path: f.Doc.Path}
	offer := func(title string, verb Verb) Offer { return Offer{Title: title, Verb: verb, On: on} }
	running := row.Status == StatusRunning
	st := offer(joinWords(row.Face.Label, row.Gate.Tally()), VerbStatus)
	st.Full = row.Face.Text()
	// The gate's summary, line by line, as the notice and the Pipeline
	// view say it; the title counts its lines by their words.
	for _, l := range row.Gate.Lines(nil) {
		st.Full = joinWords(st.Full, report.GateText(l))
	}
	var primary *Offer
	if row.Status == string(state.Awaiting) {
		a := offer("✓ Approve", VerbApprove)
		primary = &a
		st.More = append(st.More, a)
	}
	sess := f.o.sess
	hasModel := sess.Reviews().HasModelVersion(f.Doc.Path)
	if hasModel {
		st.More = append(st.More, offer("⇄ Compare with the model's version", VerbCompare))
	}
	// Each change the run proposes outside output/, beside the file as it
	// is: what approving applies.
	if row.Gate != nil {
		for _, p := range row.Gate.Proposed {
			st.More = append(st.More, Offer{Title: "⇄ Proposed change: " + p.Target, Verb: VerbCompare,
				On: Target{Workspace: ws.Root, Stage: stg.Name, Path: ws.Abs(p.Target), Proposal: true}})
		}
	}
	// Untrusted, a re-run would be refused: the place offers trust, as
	// the contract's title does.
	canRun := !running && sess.Trust().Decision().Allowed()
	switch {
	case canRun:
		r := offer("▶ Re-run", VerbRunStage)
		if primary == nil {
			primary = &r
		}
		st.More = append(st.More, r)
	case !running:
		st.More = append(st.More, Offer{Title: "Trust this workspace to run it", Verb: VerbTrust, On: Target{Workspace: ws.Root}})
	}
	// A For each source's count reads beside the state: "awaiting review
	// · 3 items for 04-draft".
	for _, l := range sources {
		st.Title = joinWords(st.Title, l.Title)
		st.Full = joinWords(st.Full, l.Title)
		st.More = append(st.More, Offer{Title: "Show the first item's context (" + l.Title + ")", Verb: l.Verb, On: l.On})
	}
	first := []Lens{{Offer: st}}
	if primary != nil {
		first = append(first, Lens{Offer: *primary})
	}
	if c.ForEach == nil || !hasModel {
		return first
	}
	spans := sess.Reviews().ItemSpans(f.Doc.Path, string(f.Doc.Text))
	m := f.Doc.Mapper()
	var out []Lens
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
		words := itemWords(sp, len(spans))
		rerun := Offer{Title: fmt.Sprintf("▶ Re-run item %d", sp.Index), Verb: VerbRerunItem, On: item}
		if pos.Line == 0 {
			// The item shares the file's line: its state goes under the
			// file's state, and its Re-run stands beside the file's two
			// short lenses, as every other item's does on its heading
			// (under the state alone, a person found no way to re-run
			// item 1), and under the state with the item's title.
			if !sp.Edited {
				words += " · as the model wrote it"
			}
			first[0].Full = joinWords(first[0].Full, words)
			if canRun {
				first = append(first, Lens{Offer: rerun})
				rerun.Title = fmt.Sprintf("▶ Re-run item %d (%s)", sp.Index, sp.Title)
				first[0].More = append(first[0].More, rerun)
			}
			continue
		}
		full := fmt.Sprintf("%s: %s", words, sp.Title)
		if !sp.Edited {
			full += " · as the model wrote it"
		}
		is := Offer{Title: words, Verb: VerbStatus, On: item, Full: full}
		if canRun {
			is.More = []Offer{rerun}
		}
		out = append(out, Lens{Line: pos.Line, Offer: is})
		if canRun {
			out = append(out, Lens{Line: pos.Line, Offer: rerun})
		}
	}
	return append(first, out...)
}

// itemWords is an item's state in its lens: "item 2 of 4", or "item 2
// of 4 · edited" when the person changed it.
func itemWords(sp report.ItemSpan, n int) string {
	words := fmt.Sprintf("item %d of %d", sp.Index, n)
	if sp.Edited {
		words += " · edited"
	}
	return words
}

// outputOf is the stage whose output the file is, with the stage's
// contract as a run reads it ({{VAR}} filled from [vars]); nil when the
// file is no stage's output (a contract, a file beside one, a file in no
// stage).
func (f *File) outputOf() (*workspace.Stage, *contract.Contract) {
	ws := f.ws()
	stg := ws.StageOf(f.Doc.Path)
	if stg == nil || stg.Contract == f.Doc.Path {
		return nil, nil
	}
	src, err := ws.Files.ReadFile(stg.Contract)
	if err != nil {
		return nil, nil
	}
	c := contract.ParseWith(stg.Contract, src, contract.Options{Vars: ws.Vars})
	rel := ws.Rel(f.Doc.Path)
	for _, o := range state.OutputPaths(ws, stg, c) {
		if o == rel {
			return stg, c
		}
	}
	return nil, nil
}
