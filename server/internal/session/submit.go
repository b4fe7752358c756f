package session

import (
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
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

// Submission prepares the run that records a Submission. It is a run
// like a model's (the lock, the declared outputs, the guard on a
// person's edits, atomic writes, the record, Verify, rubrics, the trace)
// that calls no model and always stops at the gate. Execute refuses,
// changing nothing, files that are not the stage's declared outputs and
// a context that is not the stage's context now. An untrusted workspace
// takes none (a fault of kind Untrusted).
func (rn Runs) Submission(sub Submission, observe func(report.Event)) (*Run, error) {
	s := rn.s
	agent := strings.TrimSpace(sub.Agent)
	if agent == "" {
		return nil, fault.InvalidRequest("an agent's outputs need the agent's name", "name the client that hands them in")
	}
	if sub.Stage == "" {
		return nil, fault.InvalidRequest("outputs are handed in for one stage: name it", "pass the stage, e.g. 01-scope")
	}
	// Untrusted, a workspace is read-only: its outputs are not written
	// and its Verify checks (which may run its commands) do not run.
	if err := s.Trust().Require("take outputs handed in for its stages"); err != nil {
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
		CodeBlocks: s.codeBlocks(),
		Progress:   r.event,
		Embedder:   s.embedder(),
		Submission: &workflow.Submission{Agent: agent, ContextID: strings.TrimSpace(sub.ContextID), Files: sub.Files},
	})
	if err != nil {
		return nil, fault.From(err)
	}
	r.eng = eng
	return r, nil
}
