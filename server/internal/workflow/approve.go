package workflow

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/rubric"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// ErrVerifyFailed marks an approval refused because Verify checks failed.
var ErrVerifyFailed = errors.New("verify-failed")

// ApproveOptions change how a stage is approved.
type ApproveOptions struct {
	// Force approves despite failing Verify checks or a stale stage.
	Force bool
	// By records who approved ("user" when empty).
	By  string
	Now func() time.Time
	// CodeBlocks runs `code-blocks` checks when re-verifying.
	CodeBlocks verify.CodeChecker
	// Model is the model override runs use ("" for the configured one), so
	// the stage's state is judged as they see it.
	Model string
	// Permit is asked before each `run:` check runs again (see
	// Options.Permit).
	Permit act.Permit
	// applied are the proposed changes this approval applied.
	applied []string
	// Reviewer and Note are who approved and what they said of it, kept
	// with the approval.
	Reviewer, Note string
}

// Approve records that a person accepts a stage's outputs as they are now:
// the approval holds their hashes, so any later edit needs approving again.
// ctx bounds the Verify checks it runs again (a code-blocks check may take
// seconds).
func Approve(ctx context.Context, ws *workspace.Workspace, name string, opts ApproveOptions) (*state.Approval, error) {
	// An approval records the settings it approved under: never the
	// defaults standing in for a config.toml icm could not read.
	if f := ws.ConfigFault(); f != nil {
		return nil, f
	}
	st, err := ws.Stage(name)
	if err != nil {
		return nil, err
	}
	src, err := ws.Files.ReadFile(st.Contract)
	if err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", st.ContractRel(), err)
	}
	c := contract.ParseWith(st.Contract, src, contract.Options{Vars: ws.Vars})
	s, err := state.Derive(ws, st, c, state.ResolveSettings(ws.Config.Model, c.Model, opts.Model))
	if err != nil {
		return nil, err
	}
	switch s.Status {
	case state.Pending:
		return nil, fault.NotRun(st.Name)
	case state.Approved:
		return s.Approval, nil
	case state.Failed:
		if !opts.Force {
			return nil, fault.RunFailed(st.Name, s.Reason)
		}
	case state.Invalid:
		return nil, fault.ContractInvalid(st.Name, st.Contract, 0, []string{s.Reason})
	case state.Stale:
		if !opts.Force {
			return nil, fault.Stale(st.Name, s.Reason)
		}
	}
	if !anyPresent(s.Outputs) && !s.Manual && !proposes(s) {
		// Nothing was ever written (a first run that failed): there is
		// nothing to accept, forced or not.
		f := fault.NotRun(st.Name)
		if s.Reason != "" {
			f.Msg = fmt.Sprintf("stage %s has no output to approve: %s", st.Name, s.Reason)
		}
		return nil, f
	}
	if len(c.Verify) > 0 && !opts.Force {
		if err := reverify(ctx, ws, st, c, s, opts); err != nil {
			return nil, err
		}
	}
	if !opts.Force {
		if err := recheckRubric(ws, st, c, s); err != nil {
			return nil, err
		}
	}
	applied, err := applyProposals(ws, st, s)
	if err != nil {
		return nil, err
	}
	opts.applied = applied
	return writeApproval(ws, st, s, opts)
}

// proposes reports whether the stage's last run proposes changes to
// files outside output/.
func proposes(s *state.StageState) bool {
	return s.Record != nil && s.Record.Writes != nil && len(s.Record.Writes.Proposals) > 0
}

// anyPresent reports whether any output exists.
func anyPresent(outs state.Hashes) bool {
	for _, h := range outs {
		if h != state.Missing {
			return true
		}
	}
	return false
}

// reverify runs the Verify checks on the outputs as they are now (a
// person may have fixed them) and refuses with every finding when any
// check fails.
func reverify(ctx context.Context, ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, s *state.StageState, opts ApproveOptions) error {
	var outs []verify.Output
	for rel, h := range s.Outputs {
		if h != state.Missing {
			outs = append(outs, verify.Output{Rel: rel, Abs: ws.Abs(rel)})
		}
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Rel < outs[j].Rel })
	var prov *verify.Provenance
	if s.Record != nil {
		// The URLs the last run's tools returned still decide what the
		// output may cite.
		prov = verify.ProvenanceOf(s.Record.Sources)
	}
	results := verify.Run(ctx, c.Verify, outs, verifyEnv(ws, st, opts.CodeBlocks, opts.Permit, prov))
	var msgs []string
	file, line := "", 0
	for _, v := range results {
		for _, f := range v.Findings {
			loc := f.File
			if f.Line > 0 {
				loc = fmt.Sprintf("%s:%d", f.File, f.Line)
			}
			if file == "" {
				if file = findingPath(ws, f.File); file != "" {
					line = f.Line
				}
			}
			msgs = append(msgs, loc+": "+f.Message)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fault.VerifyFailed(st.Name, msgs, file, line).Because(ErrVerifyFailed)
}

// recheckRubric runs the stage's review rubrics on the outputs as they
// are now and refuses with every failure when any check fails, as a
// failing Verify check does.
func recheckRubric(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, s *state.StageState) error {
	var outs []string
	for rel, h := range s.Outputs {
		if h != state.Missing {
			outs = append(outs, rel)
		}
	}
	sort.Strings(outs)
	checks := rubric.Run(ws, st, c, outs)
	var msgs []string
	file, line := "", 0
	for _, rc := range checks {
		if rc.OK || rc.Note {
			continue
		}
		loc := rc.Output
		if rc.Line > 0 {
			loc = fmt.Sprintf("%s:%d", rc.Output, rc.Line)
		}
		if file == "" {
			if file = findingPath(ws, rc.Output); file != "" {
				line = rc.Line
			}
		}
		msgs = append(msgs, fmt.Sprintf("%s: %s (%s)", loc, rc.Message, rc.Rubric))
	}
	if len(msgs) == 0 {
		return nil
	}
	return fault.RubricFails(st.Name, state.RubricLine(checks), msgs, file, line).Because(ErrVerifyFailed)
}

// findingPath returns the file a Verify finding is about as an absolute
// path, or "" when the finding is about the stage rather than a file
// (findings name outputs by workspace-relative path, the stage by name).
func findingPath(ws *workspace.Workspace, file string) string {
	abs := ws.Abs(file)
	if _, err := ws.Disk.Stat(abs); err != nil {
		return ""
	}
	return abs
}

func writeApproval(ws *workspace.Workspace, st *workspace.Stage, s *state.StageState, opts ApproveOptions) (*state.Approval, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	by := opts.By
	if by == "" {
		by = "user"
	}
	a := &state.Approval{Stage: st.Name, ApprovedAt: now(), Outputs: s.Outputs, By: by, Forced: opts.Force, Applied: opts.applied,
		Reviewer: opts.Reviewer, Note: opts.Note}
	if s.Record != nil {
		a.RunID = s.Record.RunID
	}
	if err := state.WriteApproval(ws.Disk, st.Dir, a); err != nil {
		return nil, err
	}
	return a, nil
}

// approve approves a stage inside a run (gate rerun).
func (e *Engine) approve(st *workspace.Stage, c *contract.Contract, by string) error {
	s, err := state.Derive(e.ws, st, c, state.ResolveSettings(e.ws.Config.Model, c.Model, e.opts.Model))
	if err != nil {
		return err
	}
	_, err = writeApproval(e.ws, st, s, ApproveOptions{By: by, Now: e.opts.Now})
	if err == nil {
		e.emit(report.Event{Kind: report.EventGate, Stage: st.Name, Status: string(state.Approved), Message: st.Name + " approved by running again (gate rerun)"})
	}
	return err
}
