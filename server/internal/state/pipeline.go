package state

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/human"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Next actions.
const (
	ActionRun     = "run"
	ActionApprove = "approve"
	ActionFix     = "fix"
	ActionDone    = "done"
)

// PipelineState is the state of every stage and what to do next.
type PipelineState struct {
	Stages []*StageState `json:"stages"`
	Next   Next          `json:"next"`
	// Running names the stage a run is working on now ("" when none is,
	// or when a run holds the workspace before its first stage).
	Running string `json:"running,omitempty"`
	// steps are each stage's own next step (StepOf).
	steps map[string]Next
}

// Next is the one thing to do next in a workspace.
type Next struct {
	// Stage is the stage to act on ("" when everything is approved).
	Stage string `json:"stage,omitempty"`
	// Action is run, approve, fix (the contract has errors or config.toml
	// cannot be used), trust (the workspace must be trusted before it
	// runs), start-server (the model server does not answer), wait (a
	// run is going) or done.
	Action  string `json:"action"`
	Message string `json:"message"`
}

// PipelineOptions say what a run would see besides the files.
type PipelineOptions struct {
	// Model is the model override a run would use (--model, the editor's
	// setting); "" means the configured one. Settings are compared with it.
	Model string
	// Errors lists, per stage, the error findings `icm check` has for it
	// beyond the contract's own (a missing input, an escaping path); a
	// stage with any cannot run and is invalid.
	Errors map[string][]string
	// Models, when set, says what is known of a model name on the model
	// server (see ModelCheck); nil judges no model name.
	Models ModelCheck
	// Blocks are what else stands before a run now (a run going, trust,
	// the model server), as the caller learned them: the next step says
	// the first of them that holds the stage up.
	Blocks Blocks
}

// ModelCheck says whether the model server has a model: problem is ""
// when it does, else why it cannot be used in words ("the model server
// at URL has no model "qwen3.5:9"; did you mean qwen3.5:9b?"). missing
// is set when the server answered without it, and clear when the name
// could not be checked (the server did not answer): a stage whose model
// is missing is in ConfigError; one whose model changed to a name that
// cannot be checked is too, rather than stale.
type ModelCheck func(model string) (problem string, missing bool)

// judgeOf is a stage's configJudge: config.toml unreadable (every stage),
// then the model the stage runs with.
func judgeOf(ws *workspace.Workspace, c *contract.Contract, settings Settings, models ModelCheck) configJudge {
	return func(changed bool) string {
		if ws.ConfigErr != nil {
			return "config.toml cannot be read: " + ws.ConfigErr.Error()
		}
		if models == nil || c.Script != nil || settings.Model() == "" {
			return ""
		}
		problem, missing := models(settings.Model())
		if problem != "" && (missing || changed) {
			return problem
		}
		return ""
	}
}

// Pipeline derives every stage's state. contracts maps stage names to
// parsed contracts; a stage without one is reported invalid.
func Pipeline(ws *workspace.Workspace, contracts map[string]*contract.Contract, opts PipelineOptions) (*PipelineState, error) {
	p := &PipelineState{}
	for _, st := range ws.Stages {
		c := contracts[st.Name]
		if c == nil {
			reason := "no CONTEXT.md"
			if st.Escape != nil {
				reason = "the stage folder is a symbolic link to " + st.Escape.Target + ", outside the workspace; icm reads nothing there"
			}
			p.Stages = append(p.Stages, &StageState{Stage: st.Name, Status: Invalid, Reason: reason})
			continue
		}
		settings := ResolveSettings(ws.Config.Model, c.Model, opts.Model)
		s, err := derive(ws, st, c, settings, judgeOf(ws, c, settings, opts.Models))
		if err != nil {
			return nil, fmt.Errorf("unable to read the state of stage %s: %w", st.Name, err)
		}
		if s.Status != Approved && s.Kept != Approved {
			why := ""
			if errs := opts.Errors[st.Name]; len(errs) > 0 {
				why = "cannot run: " + errs[0]
				if len(errs) > 1 {
					why += fmt.Sprintf(" (and %s)", human.Plural(len(errs)-1, "more problem"))
				}
			} else if hasErrors(c) {
				why = "its contract has errors"
			}
			switch {
			case why == "":
			case s.unreviewed():
				// An output nobody has reviewed yet is still there to
				// review: "has errors" would hide it and its Approve.
				// The errors are told beside it, and a run's change to
				// the contract (stale) stays in the reason.
				s.Status, s.Errors = Awaiting, why
			default:
				s.Status, s.Reason = Invalid, why
			}
		}
		p.Stages = append(p.Stages, s)
	}
	p.Running = opts.Blocks.Running
	for _, s := range p.Stages {
		f := FaceOf(s, false, "")
		if p.Running != "" && s.Stage == p.Running {
			f = FaceOf(s, true, "a run is working on it")
		}
		s.Face = &f
	}
	p.Next, p.steps = next(ws, p.Stages, contracts, opts.Blocks)
	return p, nil
}

func hasErrors(c *contract.Contract) bool {
	for _, f := range c.Findings {
		if f.Severity == contract.Error {
			return true
		}
	}
	return false
}

// unreviewed reports whether the stage holds the outputs its last run
// wrote, finished, and nobody has approved them: a person's review is
// pending (awaiting review, or stale since the run read its inputs).
func (s *StageState) unreviewed() bool {
	r := s.Record
	if r == nil || r.Status != RunDone || (s.Status != Awaiting && s.Status != Stale) {
		return false
	}
	if s.Approval != nil && sameHashes(s.Approval.Outputs, s.Outputs) {
		return false
	}
	for _, h := range s.Outputs {
		if h != Missing {
			return true
		}
	}
	return false
}
