package session

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/textdiff"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// ModelVersion is an output file and the copy icm keeps of it as the
// model last wrote it (a person's edits are the difference).
type ModelVersion struct {
	Stage string
	// Output is the output file, absolute; Rel is the same path below the
	// workspace.
	Output string
	Rel    string
	// Copy is the kept copy, absolute.
	Copy string
}

// ModelVersion finds the model's version of an output: path (absolute,
// or below the workspace) when given, else the one output the model of
// stage writes. An output that has none is a not-run fault (run the stage
// again: from then on icm keeps it), with one message in every front end.
func (rv Reviews) ModelVersion(stage, path string) (*ModelVersion, error) {
	s := rv.s
	ws := s.ws
	if path == "" {
		if stage == "" {
			return nil, fault.InvalidRequest("the model's version of what? name a stage or an output file", "pass the stage, or the output's path")
		}
		st, err := ws.Stage(stage)
		if err != nil {
			return nil, fault.From(err)
		}
		w, err := workflow.ReadWritten(ws, st)
		if err != nil {
			return nil, fault.From(err)
		}
		if w == nil {
			return nil, noModelVersion(st.Name, st.Name+"'s output")
		}
		path = w.Output
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = ws.Abs(path)
	}
	st := ws.StageOf(abs)
	if st == nil {
		return nil, fault.InvalidRequest(fmt.Sprintf("%s is not a stage's output", path), "name a file in a stage's output/ folder")
	}
	rel := ws.Rel(abs)
	cp := workflow.ModelVersionPath(ws, st, rel)
	if _, err := ws.Disk.Stat(cp); err != nil {
		return nil, noModelVersion(st.Name, rel)
	}
	return &ModelVersion{Stage: st.Name, Output: abs, Rel: rel, Copy: cp}, nil
}

// noModelVersion says that icm keeps no model's version of what.
func noModelVersion(stage, what string) *fault.Error {
	return (&fault.Error{Kind: fault.KindNotRun, Stage: stage,
		Msg:  fmt.Sprintf("icm has no model's version of %s: no model run of stage %s has written it since icm began keeping one", what, stage),
		Hint: "run the stage again; from then on icm keeps what the model wrote"}).With(fault.Action{ID: fault.RunStage, Stage: stage})
}

// HasModelVersion reports whether icm keeps the model's version of the
// output at abs.
func (rv Reviews) HasModelVersion(abs string) bool {
	_, err := rv.ModelVersion("", abs)
	return err == nil
}

// ReadModelVersion is the text of an output as the model last wrote it.
func (rv Reviews) ReadModelVersion(path string) (string, error) {
	s := rv.s
	mv, err := rv.ModelVersion("", path)
	if err != nil {
		return "", err
	}
	data, err := s.ws.Disk.ReadFile(mv.Copy)
	if err != nil {
		return "", fault.From(fmt.Errorf("unable to read the model's version of %s: %w", mv.Rel, err))
	}
	return string(data), nil
}

// ItemSpans places the items of the For each stage that wrote the output
// at abs in text (the output as it is now, a person's edits included);
// nil when the output is not such a stage's model output or icm keeps no
// answers for its items.
func (rv Reviews) ItemSpans(abs, text string) []report.ItemSpan {
	s := rv.s
	st := s.ws.StageOf(abs)
	if st == nil {
		return nil
	}
	w, err := workflow.ReadWritten(s.ws, st)
	if err != nil || w == nil || w.Output != s.ws.Rel(abs) || len(w.Items) == 0 {
		return nil
	}
	return workflow.LocateItems(text, w.Items)
}

// FileDiff is how one file changed, as a unified diff.
type FileDiff struct {
	// From and To name the two sides, below the workspace.
	From, To string
	// Text is the unified diff; "" when the two sides do not differ, and
	// then Same says so in words ("unchanged since ...").
	Text string
	Same string
	// Gone is set when the output is no longer written (To does not
	// exist); the diff is then empty.
	Gone bool
}

// OutputDiff compares each of a stage's outputs with its newest version
// kept in history/versions/ (the previous run's, or a person's edit the
// run replaced).
func (rv Reviews) OutputDiff(stage string) ([]FileDiff, error) {
	s := rv.s
	ws := s.ws
	st, err := ws.Stage(stage)
	if err != nil {
		return nil, fault.From(err)
	}
	versions, err := workflow.Versions(ws, st.Name)
	if err != nil {
		return nil, fault.From(err)
	}
	if len(versions) == 0 {
		return nil, (&fault.Error{Kind: fault.KindNotRun, Stage: st.Name,
			Msg:  fmt.Sprintf("stage %s has no earlier version kept in %s; it has run at most once", st.Name, ws.Rel(workflow.VersionsDir(ws, st.Name))),
			Hint: "run it again: each run keeps the version it replaces"}).With(fault.Action{ID: fault.RunStage, Stage: st.Name})
	}
	prev := versions[0]
	var out []FileDiff
	for _, name := range prev.Names() {
		cur := filepath.Join(st.Dir, workspace.OutputDir, name)
		d := FileDiff{From: ws.Rel(prev.Files[name]), To: ws.Rel(cur), Same: "unchanged since " + prev.Label}
		a, _ := ws.Disk.ReadFile(prev.Files[name])
		b, err := ws.Disk.ReadFile(cur)
		if err != nil {
			d.Gone = true
			out = append(out, d)
			continue
		}
		if d.Text, err = unified(a, b, d.From, d.To); err != nil {
			return nil, fault.From(err)
		}
		out = append(out, d)
	}
	return out, nil
}

// EditDiff compares the output the model of a stage last wrote with the
// file as it is now: a person's edit.
func (rv Reviews) EditDiff(stage string) (*FileDiff, error) {
	s := rv.s
	mv, err := rv.ModelVersion(stage, "")
	if err != nil {
		return nil, err
	}
	a, err := s.ws.Disk.ReadFile(mv.Copy)
	if err != nil {
		return nil, fault.From(fmt.Errorf("unable to read the model's version of %s: %w", mv.Rel, err))
	}
	b, err := s.ws.Disk.ReadFile(mv.Output)
	if err != nil {
		return nil, fault.From(fmt.Errorf("unable to read %s: %w", mv.Rel, err))
	}
	d := &FileDiff{From: mv.Rel + " (the model's version)", To: mv.Rel, Same: "as the model wrote it"}
	if d.Text, err = unified(a, b, d.From, d.To); err != nil {
		return nil, fault.From(err)
	}
	return d, nil
}

// unified is the unified diff from a (named from) to b (named to), with
// three lines of context; "" when they do not differ. It is linear in the
// files' size (package textdiff), so any two files under the read cap get
// one.
func unified(a, b []byte, from, to string) (string, error) {
	var d strings.Builder
	changed, err := textdiff.Unified(&d, string(a), string(b), from, to, 3)
	if err != nil || !changed {
		return "", err
	}
	return d.String(), nil
}

// ProposedDiffs compares each file outside output/ that the stage's last
// run proposes to change with the change: what approving it applies. A
// change applied already compares as the same ("applied").
func (rv Reviews) ProposedDiffs(stage string) ([]FileDiff, error) {
	ws := rv.s.ws
	props, err := rv.proposals(stage)
	if err != nil {
		return nil, err
	}
	var out []FileDiff
	for _, p := range props {
		d := FileDiff{From: p.Target, To: p.Target + " (proposed)", Same: "applied"}
		a, _ := ws.Disk.ReadFile(ws.Abs(p.Target)) // a new file compares as empty
		b, err := rv.readKept(p)
		if err != nil {
			return nil, err
		}
		if d.Text, err = unified(a, b, d.From, d.To); err != nil {
			return nil, fault.From(err)
		}
		out = append(out, d)
	}
	return out, nil
}

// ProposedChange is one change a stage's last run proposes to a file
// outside output/, as approving would apply it.
type ProposedChange struct {
	// Target is the file it changes (absolute); New is set when the file
	// is not there yet.
	Target string
	New    bool
	// Text is the proposed content.
	Text string
}

// Proposal is the change the stage's last run proposes to target
// (absolute, or relative to the workspace), for the editor to show
// beside the file as it is.
func (rv Reviews) Proposal(stage, target string) (*ProposedChange, error) {
	ws := rv.s.ws
	props, err := rv.proposals(stage)
	if err != nil {
		return nil, err
	}
	want := target
	if !filepath.IsAbs(want) {
		want = ws.Abs(target)
	}
	for _, p := range props {
		if ws.Abs(p.Target) != want {
			continue
		}
		data, err := rv.readKept(p)
		if err != nil {
			return nil, err
		}
		return &ProposedChange{Target: want, New: p.Base == state.Missing, Text: string(data)}, nil
	}
	return nil, fault.NotFound(fmt.Sprintf("the last run of %s proposes no change to %s", stage, ws.Rel(want)),
		"the stage's gate lists the changes it proposes; run it again if it should propose one")
}

// proposals are the changes outside output/ the stage's last run keeps
// for approval (none when it has no record).
func (rv Reviews) proposals(stage string) ([]state.Proposal, error) {
	ws := rv.s.ws
	st, err := ws.Stage(stage)
	if err != nil {
		return nil, fault.From(err)
	}
	rec, err := state.ReadRecord(ws.Disk, st.Dir)
	if err != nil {
		return nil, fault.From(err)
	}
	if rec == nil || rec.Writes == nil {
		return nil, nil
	}
	return rec.Writes.Proposals, nil
}

// readKept reads the proposed content a run kept for p, as approving
// would apply it: a copy changed since the run is refused here as there.
func (rv Reviews) readKept(p state.Proposal) ([]byte, error) {
	ws := rv.s.ws
	data, err := ws.Disk.ReadFile(ws.Abs(p.Kept))
	if err != nil {
		return nil, fault.From(fmt.Errorf("unable to read the change proposed to %s: %w", p.Target, err))
	}
	if state.Hash(data) != p.Hash {
		return nil, fault.NotFound(fmt.Sprintf("the change the run proposes to %s is no longer kept as the run left it", p.Target),
			"run the stage again for a fresh proposal")
	}
	return data, nil
}
