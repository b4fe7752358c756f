package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// ApproveRequest is what a person says when they approve.
type ApproveRequest struct {
	// Force approves past failing checks, a stale stage or a failed run;
	// it needs a Note.
	Force bool
	// Note is why they accept the outputs, kept with the approval.
	Note string
}

// Approve records that a person accepts a stage's outputs as they are on
// disk now, with who they are (git's user name, else the account) and
// their note. It refuses (unless forced) while the stage's Verify checks
// fail on them, while it is stale under these settings, or after a failed
// run; and it refuses a forced approval without a note, which is the
// record of why.
func (rv Reviews) Approve(ctx context.Context, stage string, req ApproveRequest) (*state.Approval, error) {
	s := rv.s
	note := strings.TrimSpace(req.Note)
	if req.Force && note == "" {
		return nil, fault.InvalidRequest(fmt.Sprintf("approving %s past its checks needs a note: say why the outputs are fine as they are", stage),
			"the note is kept with the approval, for whoever reads the stage's history").In(stage).With(fault.Action{ID: fault.ApproveAnyway, Stage: stage})
	}
	if rv.runsCommands(stage) {
		if err := s.Trust().Require(fmt.Sprintf("run the `run:` checks of %s to approve it", stage)); err != nil {
			return nil, fault.From(err).In(stage)
		}
	}
	if targets := rv.proposed(stage); len(targets) > 0 {
		// Approving writes outside output/: only in a workspace its
		// person trusts.
		if err := s.Trust().Require(fmt.Sprintf("apply the changes %s proposes to %s", stage, strings.Join(targets, ", "))); err != nil {
			return nil, fault.From(err).In(stage)
		}
	}
	a, err := workflow.Approve(ctx, s.ws, stage, workflow.ApproveOptions{
		Force: req.Force, Model: s.opts.Settings.Model, CodeBlocks: s.codeBlocks(), Permit: s.permit(),
		Reviewer: s.reviewer(), Note: note})
	if err != nil {
		return nil, fault.From(err)
	}
	return a, nil
}

// ApproveAs records an approval by someone other than the person at the
// keyboard: by is state.AgentPrefix and the agent's name for an agent a
// person's own settings let approve. It never forces: an agent cannot
// approve past failing checks, a stale stage or a failed run; and only
// in a trusted workspace.
func (rv Reviews) ApproveAs(ctx context.Context, stage, by string) (*state.Approval, error) {
	s := rv.s
	if err := s.Trust().Require("approve its stages for " + by); err != nil {
		return nil, err
	}
	a, err := workflow.Approve(ctx, s.ws, stage, workflow.ApproveOptions{
		By: by, Model: s.opts.Settings.Model, CodeBlocks: s.codeBlocks(), Permit: s.permit()})
	if err != nil {
		return nil, fault.From(err)
	}
	return a, nil
}

// proposed lists the files outside output/ that approving the stage
// would change: its last run's proposals not applied yet.
func (rv Reviews) proposed(stage string) []string {
	s := rv.s
	props, err := rv.proposals(stage)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range props {
		if h, err := state.HashFile(s.ws.Disk, p.Target); err != nil || h != p.Hash {
			out = append(out, p.Target)
		}
	}
	return out
}

// runsCommands reports whether approving the stage would run a `run:`
// check its contract names.
func (rv Reviews) runsCommands(stage string) bool {
	s := rv.s
	st, err := s.ws.Stage(stage)
	if err != nil {
		return false
	}
	src, err := s.ws.Disk.ReadFile(st.Contract)
	if err != nil {
		return false
	}
	for _, c := range contract.Parse(st.Contract, src).Verify {
		if c.Kind == "run" {
			return true
		}
	}
	return false
}

// Outputs are a stage's current output files and the versions history
// keeps of them.
type Outputs struct {
	Current  []OutputFile
	Previous []KeptOutput
}

// Outputs lists a stage's outputs as its state counts them (declared
// files, and what sits in output/ for folder and templated outputs) and
// the versions kept in history/versions/<stage>/, newest first.
func (rv Reviews) Outputs(stage string) (*Outputs, error) {
	s := rv.s
	st, err := s.ws.Stage(stage)
	if err != nil {
		return nil, fault.From(err)
	}
	src, err := s.ws.Files.ReadFile(st.Contract)
	if err != nil {
		return nil, fault.From(fmt.Errorf("unable to read %s: %w", st.ContractRel(), err))
	}
	c := contract.ParseWith(st.Contract, src, contract.Options{Vars: s.ws.Vars})
	out := &Outputs{Current: []OutputFile{}, Previous: []KeptOutput{}}
	for _, rel := range state.OutputPaths(s.ws, st, c) {
		abs := s.ws.Abs(rel)
		_, statErr := s.ws.Disk.Stat(abs)
		out.Current = append(out.Current, OutputFile{Path: abs, Exists: statErr == nil})
	}
	versions, err := workflow.Versions(s.ws, st.Name)
	if err != nil {
		return nil, fault.From(err)
	}
	for _, v := range versions {
		for _, n := range v.Names() {
			out.Previous = append(out.Previous, KeptOutput{Path: v.Files[n], RunID: v.RunID, Time: v.Time})
		}
	}
	return out, nil
}

// Note keeps a person's answer to an agent's request to review a
// stage, against the stage's last run. It is a note for the record and
// never an approval; an untrusted workspace, read-only, keeps none.
func (rv Reviews) Note(n *state.ReviewNote) error {
	s := rv.s
	if err := s.Trust().Require("keep a review note"); err != nil {
		return err
	}
	st, err := s.ws.Stage(n.Stage)
	if err != nil {
		return fault.From(err)
	}
	n.Stage = st.Name
	if rec, err := state.ReadRecord(s.ws.Disk, st.Dir); err == nil && rec != nil {
		n.RunID = rec.RunID
	}
	if err := state.WriteReviewNote(s.ws.Disk, st.Dir, n); err != nil {
		return fault.From(fmt.Errorf("unable to keep the review note of %s: %w", st.Name, err))
	}
	return nil
}

// LastNote is a stage's last review note; nil when there is none.
func (rv Reviews) LastNote(stage string) (*state.ReviewNote, error) {
	s := rv.s
	st, err := s.ws.Stage(stage)
	if err != nil {
		return nil, fault.From(err)
	}
	n, err := state.ReadReviewNote(s.ws.Disk, st.Dir)
	if err != nil {
		return nil, fault.From(err)
	}
	return n, nil
}
