package wsmcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// reviewInput keys the review request among a call's input requests.
const reviewInput = "review"

// Verdicts the person picks from when an agent asks for review.
const (
	verdictGood    = "looks right"
	verdictChanges = "needs changes"
)

func (s *Server) reviewTool() (mcp.Tool, server.ToolHandlerFunc) {
	opts := append(s.workspaceArg(),
		stageArg(true, "The stage awaiting review, e.g. 01-scope."),
		mcp.WithString("summary", mcp.Description("What you did and what the person should look at, in a sentence or two.")))
	t := tool(toolReview, "Ask the person to review a stage waiting at its gate. Where your client can ask them, their answer comes back here as a note for the record, never an approval; otherwise this says the stage awaits their review and where they approve it. Stop after calling it: a person approves.", opts...)
	return t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		w, err := s.workspaceNamed(req.GetString("workspace", ""))
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		sess, err := s.open(w)
		if err != nil {
			return mcp.NewToolResultError(faultText(err)), nil
		}
		defer sess.Close()
		return s.review(ctx, req, sess)
	}
}

// review asks the person, or says the stage awaits them.
func (s *Server) review(ctx context.Context, req mcp.CallToolRequest, sess *session.Session) (*mcp.CallToolResult, error) {
	stage := req.GetString("stage", "")
	st, err := sess.Workspace().Stage(stage)
	if err != nil {
		return mcp.NewToolResultError(faultText(err)), nil
	}
	ss, err := stageState(sess, st.Name)
	if err != nil {
		return mcp.NewToolResultError(faultText(err)), nil
	}
	if ss.Status != state.Awaiting {
		f := state.FaceOf(ss, false, "")
		msg := fmt.Sprintf("Stage %s is %s (%s): there is nothing for a person to review.", st.Name, f.Label, ss.Reason)
		if ss.Status == state.Pending || ss.Status == state.Stale {
			msg += " Do its work first (probe, then submit_outputs)."
		}
		return mcp.NewToolResultText(msg), nil
	}
	asker := state.AgentPrefix + agentName(ctx)
	where := approveWhere(st.Name)
	if !canElicit(ctx) {
		return mcp.NewToolResultText(fmt.Sprintf("Awaiting review: stage %s waits for a person. %s Your client cannot ask them from here, so tell them the stage is ready, and stop.", st.Name, where)), nil
	}
	params := reviewRequest(st.Name, asker, req.GetString("summary", ""), ss)
	var answer *mcp.ElicitationResult
	if mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		// Clients of the multi round-trip era answer input requests and
		// call again with the answer.
		if answer = server.ElicitationResponse(req.Params.InputResponses, reviewInput); answer == nil {
			return server.NewInputRequestBuilder("").Elicit(reviewInput, params).ToolResult(), nil
		}
	} else {
		answer, err = s.mcp.RequestElicitation(ctx, mcp.ElicitationRequest{Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: params})
		if err != nil {
			return mcp.NewToolResultText(fmt.Sprintf("Awaiting review: stage %s waits for a person (asking them failed: %v). %s Tell them the stage is ready, and stop.", st.Name, err, where)), nil
		}
	}
	return mcp.NewToolResultText(s.keepAnswer(sess, st.Name, asker, answer)), nil
}

// approveWhere says where a person approves a stage.
func approveWhere(stage string) string {
	return fmt.Sprintf("They approve it with `icm approve %s`, or with Approve on the stage's contract or in the Pipeline view in VS Code.", stage)
}

// reviewRequest is what the person is asked.
func reviewRequest(stage, asker, summary string, ss *state.StageState) mcp.ElicitationParams {
	var m strings.Builder
	fmt.Fprintf(&m, "%s asks you to review stage %s.", asker, stage)
	if s := strings.TrimSpace(summary); s != "" {
		fmt.Fprintf(&m, " %s", s)
	}
	var outs []string
	for p, h := range ss.Outputs {
		if h != state.Missing {
			outs = append(outs, p)
		}
	}
	if len(outs) > 0 {
		fmt.Fprintf(&m, " Outputs: %s.", strings.Join(sortStrings(outs), ", "))
	}
	fmt.Fprintf(&m, " Your answer is kept as a note; it does not approve the stage: %s", approveWhere(stage))
	return mcp.ElicitationParams{Message: m.String(), RequestedSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"verdict": map[string]any{"type": "string", "title": "Your verdict", "enum": []string{verdictGood, verdictChanges}},
			"note":    map[string]any{"type": "string", "title": "A note for the agent and the record"},
		},
		"required": []string{"verdict"},
	}}
}

// keepAnswer records the person's answer as a note and says what it
// means for the agent.
func (s *Server) keepAnswer(sess *session.Session, stage, asker string, a *mcp.ElicitationResult) string {
	n := &state.ReviewNote{Stage: stage, Time: time.Now().UTC(), Asker: asker, Action: string(a.Action)}
	if m, ok := a.Content.(map[string]any); ok && a.Action == mcp.ElicitationResponseActionAccept {
		n.Verdict, _ = m["verdict"].(string)
		n.Note, _ = m["note"].(string)
	}
	kept, note := "", "This is a note for the record"
	if err := s.guard(sess, toolRules[toolReview].what); err != nil {
		// Read-only: the answer goes back to the agent and nowhere else.
		kept, note = " (not kept: the workspace is served read-only)", "It is not an approval either"
	} else if err := sess.Reviews().Note(n); err != nil {
		kept, note = " (the note could not be kept: "+err.Error()+")", "It is not an approval either"
	} else {
		s.changed()
	}
	switch {
	case a.Action != mcp.ElicitationResponseActionAccept:
		return fmt.Sprintf("The person did not answer (%s)%s. Stage %s still awaits their review; stop here.", a.Action, kept, stage)
	case n.Verdict == verdictChanges:
		return fmt.Sprintf("The person wants changes: %q%s. This is a note, not an approval. Read the stage's context again, redo the work, hand it in again with submit_outputs, then ask again.", n.Note, kept)
	}
	msg := fmt.Sprintf("The person answered %q", n.Verdict)
	if n.Note != "" {
		msg += fmt.Sprintf(" with the note %q", n.Note)
	}
	return msg + kept + fmt.Sprintf(". %s, not an approval: stage %s still awaits their approval. %s Stop here.", note, stage, approveWhere(stage))
}

// stageState is one stage's state as status derives it.
func stageState(sess *session.Session, stage string) (*state.StageState, error) {
	p, _, err := sess.Status()
	if err != nil {
		return nil, err
	}
	for _, ss := range p.Stages {
		if ss.Stage == stage {
			return ss, nil
		}
	}
	return nil, fmt.Errorf("stage %s has no state", stage)
}

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}
