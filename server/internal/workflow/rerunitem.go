package workflow

import (
	"context"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/verify"
)

// feedback is what a person said about an item's previous answer when
// asking for it again.
type feedback struct {
	previous, note string
}

// addTo puts the feedback at the end of the user part of a context, where
// the model reads it last.
func (fb *feedback) addTo(actx *assemble.Context) {
	if fb == nil || strings.TrimSpace(fb.note) == "" {
		return
	}
	actx.User = strings.TrimRight(actx.User, "\n") + "\n\n## Reviewer's note on your previous answer\n\n" +
		"Your previous answer for this item was:\n\n" + markdown.Fence("markdown", strings.TrimSpace(fb.previous)) + "\nA person reviewed it and asks:\n\n" +
		strings.TrimSpace(fb.note) + "\n\nWrite the item again, following the note.\n"
}

// rerunItem runs one item of a For each stage again (Options.Item, with
// Options.Note as feedback) and puts the new answer in place of that
// item's section of the output, leaving the rest of the file as it is, a
// person's edits included. The record then holds the model's version of
// the whole file, so edits elsewhere still count as edits; the stage's
// approval covers the whole file as before, so it needs approving again.
func (e *Engine) rerunItem(ctx context.Context, rep *check.Report, sr *check.StageReport, cur *state.StageState) (*report.StageResult, error) {
	st, c := sr.Stage, sr.Contract
	n := e.opts.Item
	if c.ForEach == nil {
		return nil, wholeStage(st.Name, fmt.Sprintf("stage %s has no For each section, so it has no items to run one of; run the whole stage", st.Name))
	}
	if cur == nil || (cur.Status != state.Awaiting && cur.Status != state.Approved) {
		why := "it has not run"
		if cur != nil {
			why = "it is " + state.Label(cur.Status) + ": " + cur.Reason
		}
		return nil, wholeStage(st.Name, fmt.Sprintf("stage %s: one item can be run again only in an output that is up to date, and %s; run the whole stage", st.Name, why))
	}
	w, err := ReadWritten(e.ws, st)
	if err != nil {
		return nil, err
	}
	if w == nil || len(w.Items) == 0 {
		return nil, wholeStage(st.Name, fmt.Sprintf("stage %s: icm has no record of the items the model wrote (the stage last ran with an older icm, or an agent handed its output in whole); run the whole stage once", st.Name))
	}
	items, rel, err := assemble.Items(e.ws, st, c)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > len(items) {
		return nil, fault.InvalidRequest(fmt.Sprintf("%s has %d items; pick one from 1 to %d", rel, len(items), len(items)), "name an item the output has")
	}
	if len(items) != len(w.Items) {
		return nil, wholeStage(st.Name, fmt.Sprintf("stage %s: %s now has %d items where the last run had %d; run the whole stage", st.Name, rel, len(items), len(w.Items)))
	}
	current, err := e.ws.Disk.ReadFile(w.Output)
	if err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", w.Output, err)
	}
	sp := LocateItems(string(current), w.Items)[n-1]
	if !sp.Found {
		return nil, wholeStage(st.Name, fmt.Sprintf("stage %s: item %d (%s) cannot be told apart in %s: it and the items around it were edited; run the whole stage, or undo the edits around it", st.Name, n, items[n-1].Title, w.Output))
	}

	r := &run{e: e, sr: sr, st: st, c: c, res: &report.StageResult{Stage: st.Name, Items: len(items)}, prev: cur.Record,
		rep: rep, warnings: warningsOf(e.ws, rep, sr)}
	r.settings, r.configured = e.settingsOf(c)
	if r.inputs, err = state.Fingerprint(e.ws, st, c); err != nil {
		return nil, err
	}
	if err := e.begin(); err != nil {
		return nil, err
	}
	start := e.opts.Now()
	e.emit(report.Event{Kind: report.EventStageStart, Stage: st.Name, Message: fmt.Sprintf("item %d of %d again: %s -> %s", n, len(items), items[n-1].Title, r.settings.Model())})
	sess, cfg, err := r.prepare(ctx)
	if err == nil {
		if sess != nil {
			defer sess.Close()
		}
		var text string
		var prov *verify.Provenance
		text, prov, err = r.item(ctx, rep, sess, cfg, items, n-1, &feedback{previous: w.Items[n-1].Text, note: e.opts.Note}, nil)
		r.res.Duration = e.opts.Now().Sub(start)
		if err == nil {
			err = r.commitItem(ctx, cur, w, sp, string(current), text, prov)
		}
	}
	r.res.Duration = e.opts.Now().Sub(start)
	if err != nil {
		err = r.explainLost(err)
		r.fail(err)
		return r.res, err
	}
	return r.res, nil
}

// commitItem writes the output with one item's section replaced, the
// model's version with that item's answer replaced, and a record binding
// the two: the kept version first, then the record saying "writing", the
// output, the model's version, the Verify checks, the record saying done.
func (r *run) commitItem(ctx context.Context, cur *state.StageState, w *Written, sp report.ItemSpan, current, text string, prov *verify.Provenance) error {
	e, st := r.e, r.st
	if err := e.keepVersions(st, cur); err != nil {
		return err
	}
	out := replaceSpan(current, sp, text)
	out = strings.TrimRight(out, "\n") + "\n"
	w.RunID = e.runID
	w.Items[sp.Index-1].Text = strings.TrimSpace(text)
	model := strings.TrimRight(joinItems(w.Items), "\n") + "\n"
	before := map[string]string{w.Output: state.Hash([]byte(current))}
	if err := state.WriteRecord(e.ws.Disk, st.Dir, r.record(state.RunWriting, map[string]string{w.Output: state.Hash([]byte(out))}, before)); err != nil {
		return err
	}
	r.touched = true
	if err := e.ws.Disk.WriteFile(w.Output, []byte(out), 0o644); err != nil {
		return err
	}
	if err := keepWritten(e.ws, st, w, []byte(model)); err != nil {
		return err
	}
	r.res.Outputs = []string{w.Output}
	// The run's provenance: the last full run's, and this item's.
	if old := cur.Record; old != nil {
		if p := verify.ProvenanceOf(old.Sources); p != nil {
			r.prov.Merge(p)
		}
	}
	if prov != nil {
		r.prov.Merge(prov)
	}
	if len(r.c.Verify) > 0 {
		r.res.Verify = verify.Run(ctx, r.c.Verify, []verify.Output{{Rel: w.Output, Abs: e.ws.Abs(w.Output)}}, verifyEnv(e.ws, st, e.opts.CodeBlocks, e.opts.Permit, r.prov))
		e.emit(report.Event{Kind: report.EventVerify, Stage: st.Name, Verify: r.res.Verify, Message: verifySummary(r.res.Verify)})
	}
	r.rubric([]string{w.Output})
	// The record holds the model's version: a person's edits in the other
	// items still read as edits, and a full run still asks before it
	// overwrites them.
	rec := r.record(state.RunDone, map[string]string{w.Output: state.Hash([]byte(model))}, before)
	rec.Verify, rec.Rubric = r.res.Verify, r.res.Rubric
	rec.Sources = r.prov.Record()
	if old := cur.Record; old != nil {
		// The other items read what they read; this item's reads are
		// as of now.
		for k, v := range old.Reads {
			if _, ok := rec.Reads[k]; !ok {
				if rec.Reads == nil {
					rec.Reads = state.Hashes{}
				}
				rec.Reads[k] = v
			}
		}
		rec.ModelCalls += old.ModelCalls
		rec.ToolCalls += old.ToolCalls
		rec.ToolErrors += old.ToolErrors
		rec.PromptTokens += old.PromptTokens
		rec.OutputTokens += old.OutputTokens
	}
	if err := state.WriteRecord(e.ws.Disk, st.Dir, rec); err != nil {
		return err
	}
	if err := r.writeResults(rec.RunID, cur.Record, sp.Title); err != nil {
		return err
	}
	r.res.Status = state.RunDone
	r.gate(rec)
	e.emit(report.Event{Kind: report.EventStageEnd, Stage: st.Name, Status: state.RunDone, Outputs: r.res.Outputs, Verify: r.res.Verify, Rubric: r.res.Rubric, ReviewGate: r.res.ReviewGate,
		Duration: r.res.Duration, PromptTokens: r.res.Prompt, OutputTokens: r.res.Output,
		Message:    fmt.Sprintf("item %d (%s) written again; the other items are as they were", sp.Index, sp.Title) + toolSuffix(r.res),
		SameOutput: r.wroteSame(rec), Gate: r.res.Gate})
	return nil
}
