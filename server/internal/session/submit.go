package session

import (
	"context"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// Submission is a coding agent's run of one stage: the agent read the
// stage's context (ContextID, from a probe or the workspace MCP server's
// context resource) and hands in the outputs it wrote from it.
type Submission struct {
	Stage     string
	ContextID string
	// Agent names the agent (its MCP client's name); the run is recorded
	// as state.AgentPrefix+Agent.
	Agent string
	Files []writeout.File
}

// NewSubmission prepares the run that records a Submission. It is a run
// like a model's (the lock, the declared outputs, the guard on a
// person's edits, atomic writes, the record, Verify, rubrics, the trace)
// that calls no model and always stops at the gate. Execute refuses,
// changing nothing, files that are not the stage's declared outputs and
// a context that is not the stage's context now. An untrusted workspace
// takes none (a fault of kind Untrusted).
func (s *Session) NewSubmission(sub Submission, observe func(report.Event)) (*Run, error) {
	agent := strings.TrimSpace(sub.Agent)
	if agent == "" {
		return nil, fault.InvalidRequest("an agent's outputs need the agent's name", "name the client that hands them in")
	}
	if sub.Stage == "" {
		return nil, fault.InvalidRequest("outputs are handed in for one stage: name it", "pass the stage, e.g. 01-scope")
	}
	// Untrusted, a workspace is read-only: its outputs are not written
	// and its Verify checks (which may run its commands) do not run.
	if err := s.Require("take outputs handed in for its stages"); err != nil {
		return nil, err
	}
	r := &Run{s: s, req: RunRequest{Stage: sub.Stage}, observe: observe, handIn: true}
	eng, err := workflow.New(s.ws, workflow.Options{
		Model:      s.opts.Settings.Model,
		Gate:       s.opts.Settings.Gate,
		Stage:      sub.Stage,
		Check:      s.CheckOptions(CheckFacts{}),
		Tools:      s.box.Opener(s.toolOptions(s.ws.Root)),
		Permit:     s.permit(),
		Self:       s.opts.Self,
		ChildEnv:   s.inherited(),
		CodeBlocks: s.CodeBlocks(),
		Progress:   r.event,
		Submission: &workflow.Submission{Agent: agent, ContextID: strings.TrimSpace(sub.ContextID), Files: sub.Files},
	})
	if err != nil {
		return nil, fault.ConfigInvalid(err.Error(), "use \"explicit\" or \"rerun\"", s.ws.Config.Path).Because(err)
	}
	r.eng = eng
	return r, nil
}

// ApproveAs records an approval by someone other than the person at the
// keyboard: by is state.AgentPrefix and the agent's name for an agent a
// person's own settings let approve. It never forces: an agent cannot
// approve past failing checks, a stale stage or a failed run; and only
// in a trusted workspace.
func (s *Session) ApproveAs(ctx context.Context, stage, by string) (*state.Approval, error) {
	if err := s.Require("approve its stages for " + by); err != nil {
		return nil, err
	}
	a, err := workflow.Approve(ctx, s.ws, stage, workflow.ApproveOptions{
		By: by, Model: s.opts.Settings.Model, CodeBlocks: s.CodeBlocks(), Permit: s.permit()})
	if err != nil {
		return nil, fault.From(err)
	}
	return a, nil
}
