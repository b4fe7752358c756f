package workflow

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// Submission is a stage's run in which a coding agent was the model: it
// read the stage's assembled context (from a probe or the workspace MCP
// server's context resource) and hands in the outputs itself. The run is
// the one a model run makes from there: the run lock, the declared
// outputs (checked by the write tool's rules), the edited-output guard,
// atomic writes with the previous versions kept, a run record, Verify,
// rubrics and the trace; it always stops at the gate.
type Submission struct {
	// Agent is the agent's name (the MCP client's), recorded as
	// state.AgentPrefix+Agent.
	Agent string
	// ContextID is the context the agent read (assemble.Context.ID). The
	// run is refused when the stage's context is another one now: the
	// files changed since, and the outputs answer a context no run would
	// send any more.
	ContextID string
	// Files are the outputs, each a path inside the stage's output/ (as
	// the write tool takes them) and its whole content.
	Files []writeout.File
}

// PurposeAgent marks the trace's model event of a Submission: the
// context the agent read and what it handed in, where a model call's
// request and reply would be.
const PurposeAgent = "agent"

// submitted is a Submission accepted for its stage: the files and the
// context they answer.
type submitted struct {
	set *writeout.Set
	ctx *assemble.Context
}

// acceptSubmission checks a Submission against its stage before anything
// is written or traced: the stage can run, its context is the one the
// agent read, and the files are exactly its declared outputs. A refusal
// changes nothing on disk.
func (e *Engine) acceptSubmission(rep *check.Report, sr *check.StageReport) (*submitted, error) {
	sub := e.opts.Submission
	st, c := sr.Stage, sr.Contract
	if c == nil {
		return nil, noContract(st.Name)
	}
	if err := invalidStage(rep, sr); err != nil {
		return nil, err
	}
	if c.Script != nil {
		return nil, fault.InvalidRequest(fmt.Sprintf("stage %s runs a script, which writes its own outputs: nothing is handed in for it", st.Name),
			"run it with run_stage (or icm run --stage "+st.Name+")").In(st.Name)
	}
	actx, err := assemble.Stage(e.ws, st, c, assemble.Options{ProducedBy: rep.ProducedBy, Order: rep.Order})
	if err != nil {
		return nil, err
	}
	if id := actx.ID(); sub.ContextID != id {
		msg := fmt.Sprintf("stage %s: the context %q is not the stage's context now (%s): its files changed since it was read, so nothing was recorded", st.Name, sub.ContextID, id)
		if strings.TrimSpace(sub.ContextID) == "" {
			msg = fmt.Sprintf("stage %s: no context id was given, so icm cannot say which context the outputs answer; nothing was recorded", st.Name)
		}
		return nil, fault.InvalidRequest(msg, "read the stage's context again (probe, or its context resource), redo the work from it, and hand in its context_id").In(st.Name)
	}
	set := writeout.NewSet(st.Rel, c, int(e.ws.Disk.MaxRead())).Contain(func(rel string) error {
		_, err := proposalTarget(e.ws, st, rel)
		return err
	})
	for _, f := range sub.Files {
		if _, err := set.Accept(f.Path, f.Content); err != nil {
			return nil, fault.InvalidRequest(fmt.Sprintf("stage %s: %v; nothing was recorded", st.Name, err),
				"hand in every declared output again, under the names the stage declares").In(st.Name)
		}
	}
	targets := writeout.Targets(c)
	if set.Len() == 0 {
		return nil, fault.InvalidRequest(fmt.Sprintf("stage %s: no files were handed in; its outputs are %s", st.Name, describeTargets(targets)),
			"hand in one file per declared output").In(st.Name)
	}
	if m := set.Missing(); len(m) > 0 {
		return nil, fault.InvalidRequest(fmt.Sprintf("stage %s: no file for %s (handed in: %s); nothing was recorded", st.Name, describeTargets(m), strings.Join(sortedFiles(set), ", ")),
			"hand in every declared output in one call").In(st.Name)
	}
	return &submitted{set: set, ctx: actx}, nil
}

// handIn is produce for a Submission: the accepted files become the
// outputs, and the trace gets one model event holding the context the
// agent read and the files it handed in, so the run reads like a model's.
func (r *run) handIn() (map[string][]byte, error) {
	acc := r.e.submitted
	sub := r.e.opts.Submission
	r.set = acc.set
	files, err := r.take(acc.set)
	if err != nil {
		return nil, err
	}
	var reply strings.Builder
	fmt.Fprintf(&reply, "Handed in over MCP by %s%s:\n", state.AgentPrefix, sub.Agent)
	for _, rel := range sortedFiles(acc.set) {
		fmt.Fprintf(&reply, "\npath: %s\n````\n%s````\n", rel, withNewline(acc.set.Files()[rel]))
	}
	r.e.emit(report.Event{Kind: report.EventModel, Stage: r.st.Name, Message: "handed in by " + state.AgentPrefix + sub.Agent, Model: &report.ModelEvent{
		Call: 1, Purpose: PurposeAgent, Model: state.AgentPrefix + sub.Agent, Server: "mcp",
		PromptEstimate: acc.ctx.Total, PromptMethod: "estimated",
		Sent:  []report.Message{{Role: llm.RoleSystem, Content: acc.ctx.System}, {Role: llm.RoleUser, Content: acc.ctx.User}},
		Reply: &report.Message{Role: llm.RoleAssistant, Content: reply.String()},
	}})
	r.res.StopReason = "handed-in"
	return files, nil
}
