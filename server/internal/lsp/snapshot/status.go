package snapshot

import (
	"context"
	"path/filepath"
	"time"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/trust"
)

// Stage states and review state are read from the disk when asked, not
// frozen in a snapshot: a run changes them (a stage starts, an item ends,
// outputs are written) while no buffer changes. A status adds the latest
// snapshot's counts and marks the stage a run from the editor is working
// on (Options.Running).

// StatusRunning is the status of the stage a run is working on.
const StatusRunning = "running"

// Running describes the run going on in a workspace: the one record
// every word about it is read from (Words), so the progress, the
// Pipeline view, the lenses and the status bar count alike.
type Running struct {
	Stage string
	RunID string
	// Item is the For each item last started (from 1) of Items, Title
	// its heading.
	Item  int
	Items int
	Title string
	// Done counts the For each items finished so far.
	Done int
	// Going are the items started and not finished, in order. It is
	// replaced, never changed in place: a copy of the record may be read
	// while the run goes on.
	Going []GoingItem
	// Only is the one item a run of one item again is for (0 for a run
	// of whole stages): the other items are kept.
	Only int
}

// Status is a workspace's state as the Pipeline view and `icm status`
// show it.
type Status struct {
	Root, Name string
	Running    *Running
	Next       state.Next
	Stages     []StageRow
	// Trust is the workspace's trust decision; nil when the workspace
	// could not be opened.
	Trust *trust.Decision
	// Err says why the state could not be read.
	Err error
}

// StageRow is one stage in a Status.
type StageRow struct {
	Name, Status, Reason string
	// Kept is the state a stage in config error keeps until the setting
	// is fixed ("approved"); "" otherwise.
	Kept     string
	Contract string
	// Outputs are the stage's outputs as absolute paths.
	Outputs      []string
	Tokens       int
	Items        int // -1 when unknown
	LastRun      *time.Time
	VerifyFailed bool
	// Rubric sums up the review rubrics' checks of the last run;
	// RubricFailed is set when one failed; ReviewGate is the contract's
	// Review Gate checklist.
	Rubric       string
	RubricFailed bool
	ReviewGate   []string
	// Face is how the state reads: the same words and icon in every face.
	Face state.Face
	// Record is the stage's last run record (nil when it never ran).
	Record *state.Record
	// Calls and StageTokens are the whole stage's first calls: one for a
	// plain stage, one per item for a For each stage.
	Calls, StageTokens int
	// Context is the context in words, as the stage's lens says it:
	// "~1.2k tokens", "4 calls, ~5.2k tokens"; "" when it cannot be
	// assembled.
	Context string
	// Downstream are the stages that read this one's outputs, directly or
	// through others: the ones a new output makes stale.
	Downstream []string
	// Gate is the gate summary of a stage awaiting review (nil for any
	// other, or when there is nothing to say).
	Gate *report.Gate
}

// Status derives the workspace's state from disk (state.Pipeline, as
// `icm status` does, through a session of its own), adds the token and
// item counts of the latest snapshot (waiting within ctx for it), and
// marks the stage being run.
func (w *Workspace) Status(ctx context.Context) *Status {
	out := &Status{Root: w.root, Name: filepath.Base(w.root)}
	op, err := w.OpenSession()
	if err != nil {
		out.Err = err
		return out
	}
	sess := op.sess
	defer op.Release()
	d := sess.Trust().Decision()
	out.Trust = &d
	disk := sess.Workspace()
	// This server's own run is read before the run lock: the run ends
	// (its lock freed) before its record goes, so a status never sees
	// the lock of a run that is over here beside no record of it.
	running := w.set.opts.Running(w.root)
	p, rep, err := sess.StatusWith(w.modelFacts(sess))
	if err != nil {
		out.Err = err
		return out
	}
	out.Next = p.Next
	down := check.Downstream(rep)
	snap, _ := w.Snapshot(ctx)
	defer snap.Release()
	out.Running = running
	for i, ss := range p.Stages {
		stg := disk.Stages[i]
		row := StageRow{Name: ss.Stage, Status: string(ss.Status), Reason: ss.Reason, Kept: string(ss.Kept), Contract: stg.Contract,
			Items: -1, LastRun: ss.LastRun, VerifyFailed: ss.VerifyFailed,
			Face: state.FaceOf(ss, false, ""), Record: ss.Record, Downstream: down[stg.Name], Gate: session.GateAt(rep, ss)}
		if p.Running == stg.Name && ss.Face != nil {
			// A run elsewhere (a terminal) works on it: the run lock says
			// so, and that run makes its new gate summary.
			row.Status, row.Reason, row.Face, row.Gate = StatusRunning, "a run is working on it", *ss.Face, nil
		}
		if sr := rep.Stage(stg.Name); sr != nil && sr.Contract != nil {
			c := sr.Contract
			row.Rubric, row.RubricFailed = ss.Rubric, ss.RubricFailed
			row.ReviewGate = contract.ReviewItems(c.ReviewGate())
			for _, rel := range state.OutputPaths(disk, stg, c) {
				row.Outputs = append(row.Outputs, disk.Abs(rel))
			}
		}
		if snap != nil && snap.report != nil {
			if sr := snap.report.Stage(stg.Name); sr != nil {
				row.Items = sr.Items
				if sr.Context != nil {
					row.Tokens = sr.Context.Total
					row.Context = contextWords(sr, snap.counts[stg.Name])
				}
			}
			if n := snap.counts[stg.Name]; n != nil {
				row.Calls, row.StageTokens = max(1, len(n.Items)), n.Total.Tokens
			}
		}
		if running != nil && running.Stage == stg.Name {
			row.Status, row.Reason = StatusRunning, "a run is working on it"
			row.Face = state.FaceOf(ss, true, runningDetail(running))
			row.Gate = nil // the run at work on it makes a new one
		}
		out.Stages = append(out.Stages, row)
	}
	return out
}

// runningDetail says how far a run has come, the running record's
// words: "2 of 4 items done · running item 3: Setup".
func runningDetail(r *Running) string {
	if _, text := r.Words(); text != "" {
		return text
	}
	return "a run is working on it"
}

// Shown records the status the editor was last shown, so the lenses and
// hovers read the very words the Pipeline view shows.
func (w *Workspace) Shown(st *Status) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.shown = st
}

// row is one stage's row of the workspace's status, as the Pipeline
// view has it: the status last shown, or a fresh one when none was or a
// run began or ended since.
func (w *Workspace) row(ctx context.Context, stage string) *StageRow {
	w.mu.Lock()
	st := w.shown
	w.mu.Unlock()
	if st != nil && (st.Running == nil) != (w.set.opts.Running(w.root) == nil) {
		st = nil // a run began or ended since: the status shown is behind
	}
	if st == nil {
		st = w.Status(ctx)
	}
	for i := range st.Stages {
		if st.Stages[i].Name == stage {
			return &st.Stages[i]
		}
	}
	return nil
}

// modelFacts is what the model server's models are, as last asked of
// the session's server (whatever model was in force then), for the status
// to tell a model name the server lacks, a config error that keeps the
// approvals, from a change of settings, and a server that did not answer
// (the next step is to start it). It asks nothing and never waits:
// until the server was first asked (by a hover, config.toml's check),
// it is nil and no model is judged.
func (w *Workspace) modelFacts(sess *session.Session) *session.ModelFacts {
	// A list older than its time to live is asked for again in the
	// background (it never waits), so a status asked for again and again
	// learns a server that stopped or started without an edit.
	w.set.installedModels(w, sess)
	names, known, down, asked := w.set.serverModels(sess)
	if !asked {
		return nil
	}
	return &session.ModelFacts{Installed: names, Known: known, Down: down}
}

// Face is how a stage reads on disk now (not as running), for the notice
// when its run ends; nil when it cannot be read.
func (w *Workspace) Face(stage string) *state.Face {
	op, err := w.OpenSession()
	if err != nil {
		return nil
	}
	defer op.Release()
	p, _, err := op.sess.StatusWith(w.modelFacts(op.sess))
	if err != nil {
		return nil
	}
	for _, ss := range p.Stages {
		if ss.Stage == stage && ss.Face != nil {
			f := *ss.Face
			return &f
		}
	}
	return nil
}
