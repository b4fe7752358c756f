package state

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Next actions besides a stage's own (run, approve, fix, done).
const (
	// ActionTrust: the stage to run next waits for the person to trust
	// the workspace.
	ActionTrust = "trust"
	// ActionServer: the model stage to run next waits for the model
	// server to answer.
	ActionServer = "start-server"
	// ActionWait: a run is working in the workspace.
	ActionWait = "wait"
)

// Blocks are what stands before a run besides the stages' own states,
// as the session learns them: the lock, the trust decision, the model
// server. The zero value knows of nothing in the way.
type Blocks struct {
	// Busy is set while a run holds the workspace; Running names the
	// stage it works on, once it started one.
	Busy    bool
	Running string
	// Untrusted is set when the workspace must be trusted before any of
	// its stages runs.
	Untrusted bool
	// Server, when set, says the model server does not answer ("no model
	// server at URL"), and Start what to do about it, in words that may
	// quote a command ("start it: `ollama serve`"). A Script stage needs
	// no server.
	Server, Start string
}

// next decides the one next step from the stages' states and what else
// blocks a run: a run going first, then the first stage that is not
// approved (its review, its contract, its settings), and for a stage
// that would run, trust and the model server. It also returns each
// stage's own step, for StepOf. Every front end prints what it says.
func next(ws *workspace.Workspace, stages []*StageState, contracts map[string]*contract.Contract, b Blocks) (Next, map[string]Next) {
	steps := map[string]Next{}
	var first *Next
	for i, s := range stages {
		step, ok := stepOf(ws.Stages[i], s, contracts[s.Stage], b)
		if !ok {
			continue
		}
		steps[s.Stage] = step
		if first == nil {
			first = &step
		}
	}
	switch {
	case b.Busy:
		if b.Running != "" {
			return Next{Stage: b.Running, Action: ActionWait,
				Message: fmt.Sprintf("%s is running: wait for the run to end, then `icm status`", b.Running)}, steps
		}
		return Next{Action: ActionWait, Message: "a run is working in the workspace: wait for it to end, then `icm status`"}, steps
	case first != nil:
		return *first, steps
	case len(stages) > 0:
		return Next{Action: ActionDone, Message: "every stage is approved"}, steps
	case len(ws.Nested) > 0:
		return Next{Action: ActionDone, Message: fmt.Sprintf("this folder holds workspaces, not stages (%s): run icm in one of them", strings.Join(ws.Nested, ", "))}, steps
	}
	return Next{Action: ActionDone, Message: "the workspace has no stages: add a numbered folder with a CONTEXT.md, such as " + ws.StagesDir + "/01-first/"}, steps
}

// stepOf is what a stage itself needs next; false when it needs nothing
// (approved).
func stepOf(st *workspace.Stage, s *StageState, c *contract.Contract, b Blocks) (Next, bool) {
	switch s.Status {
	case Approved:
		return Next{}, false
	case Awaiting:
		switch {
		case s.Committed:
			return Next{Stage: s.Stage, Action: ActionRun,
				Message: fmt.Sprintf("%s holds outputs committed with the workspace, not made by icm: keep them as approved (`icm run --adopt`) or regenerate them (`icm run --regenerate`)", s.Stage)}, true
		case s.Manual:
			return Next{Stage: s.Stage, Action: ActionApprove,
				Message: fmt.Sprintf("%s is a manual step: do what %s says, then `icm approve %s`", s.Stage, st.ContractRel(), s.Stage)}, true
		case s.Record != nil && s.Record.Writes.Partial():
			return Next{Stage: s.Stage, Action: ActionApprove,
				Message: fmt.Sprintf("%s awaiting review (%s): read %s/output/, then `icm approve %s`; or run it again for the rest: `icm run --stage %s`", s.Stage, s.Record.Writes.MissingLine(), st.Rel, s.Stage, s.Stage)}, true
		}
		if s.RubricFailed && !s.VerifyFailed {
			return Next{Stage: s.Stage, Action: ActionApprove,
				Message: fmt.Sprintf("%s awaiting review, its rubric checks failed (%s): fix %s/output/, then `icm approve %s`; or approve it as it is: `icm approve %s --force --note REASON`", s.Stage, s.Rubric, st.Rel, s.Stage, s.Stage)}, true
		}
		if s.VerifyFailed {
			// A plain approve is refused while the checks fail.
			return Next{Stage: s.Stage, Action: ActionApprove,
				Message: fmt.Sprintf("%s awaiting review, its Verify checks failed: fix %s/output/, then `icm approve %s`; or approve it as it is: `icm approve %s --force --note REASON`", s.Stage, st.Rel, s.Stage, s.Stage)}, true
		}
		return Next{Stage: s.Stage, Action: ActionApprove,
			Message: fmt.Sprintf("%s awaiting review: read %s/output/, edit if needed, then `icm approve %s`", s.Stage, st.Rel, s.Stage)}, true
	case Invalid:
		return Next{Stage: s.Stage, Action: ActionFix,
			Message: fmt.Sprintf("%s cannot run: fix the problems `icm check` reports in %s", s.Stage, st.ContractRel())}, true
	case ConfigError:
		return Next{Stage: s.Stage, Action: ActionFix,
			Message: fmt.Sprintf("%s cannot run until config.toml is fixed: %s", s.Stage, s.Reason)}, true
	}
	verb := map[Status]string{Pending: "ready to run", Stale: "stale, runs again", Failed: "failed, runs again"}[s.Status]
	switch {
	case b.Untrusted:
		return Next{Stage: s.Stage, Action: ActionTrust,
			Message: fmt.Sprintf("%s %s once you trust the workspace: `icm trust` shows what it would run, contact and read", s.Stage, verb)}, true
	case b.Server != "" && (c == nil || c.Script == nil):
		return Next{Stage: s.Stage, Action: ActionServer,
			Message: fmt.Sprintf("%s %s once the model server answers: %s; %s", s.Stage, verb, b.Server, b.Start)}, true
	}
	return Next{Stage: s.Stage, Action: ActionRun, Message: fmt.Sprintf("%s %s: `icm run`", s.Stage, verb)}, true
}

// StepOf is the next step of one stage (its review, its run, what blocks
// it), or the workspace's when that stage needs nothing: a run of one
// named stage stops at that stage's gate, whatever waits before it.
func (p *PipelineState) StepOf(stage string) Next {
	if step, ok := p.steps[stage]; ok {
		return step
	}
	return p.Next
}
