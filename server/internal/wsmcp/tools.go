package wsmcp

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// Tool names.
const (
	toolStatus  = "status"
	toolCheck   = "check"
	toolProbe   = "probe"
	toolNext    = "next"
	toolRun     = "run_stage"
	toolSubmit  = "submit_outputs"
	toolReview  = "request_review"
	toolApprove = "approve_stage"
)

// access is what a tool may do to a workspace. It decides what a
// workspace served read-only (untrusted, or with --restricted) gets.
type access int

const (
	// reads: it only reads, and is answered read-only.
	reads access = iota + 1
	// asks: it asks the person; read-only, their answer goes back to the
	// agent and nothing is kept.
	asks
	// acts: it writes outputs or approvals, or runs stages; read-only, it
	// is refused.
	acts
)

// toolRule is a tool's access and, for one that writes, what the trust
// gate's refusal says it would have done.
type toolRule struct {
	access access
	what   string
}

// toolRules classifies every tool. A tool missing here is refused as if
// it acted, and TestEveryToolIsClassified fails until it is classified.
var toolRules = map[string]toolRule{
	toolStatus:  {reads, ""},
	toolCheck:   {reads, ""},
	toolProbe:   {reads, ""},
	toolNext:    {reads, ""},
	toolRun:     {acts, "run its stages"},
	toolSubmit:  {acts, "write its outputs"},
	toolReview:  {asks, "keep a review note"},
	toolApprove: {acts, "approve its stages"},
}

// addTools registers every tool; approve_stage only where the person's
// own settings allow agents to approve.
func (s *Server) addTools() {
	s.mcp.AddTool(s.statusTool())
	s.mcp.AddTool(s.checkTool())
	s.mcp.AddTool(s.probeTool())
	s.mcp.AddTool(s.nextTool())
	s.mcp.AddTool(s.runTool())
	s.mcp.AddTool(s.submitTool())
	s.mcp.AddTool(s.reviewTool())
	if s.d.AllowApprove {
		s.mcp.AddTool(s.approveTool())
	}
}

// workspaceArg is the workspace argument, offered only when the server
// serves several.
func (s *Server) workspaceArg() []mcp.ToolOption {
	if !s.several() {
		return nil
	}
	return []mcp.ToolOption{mcp.WithString("workspace", mcp.Required(), mcp.Description("The workspace: one of "+s.names()+"."))}
}

// stageArg is the stage argument.
func stageArg(required bool, desc string) mcp.ToolOption {
	opts := []mcp.PropertyOption{mcp.Description(desc)}
	if required {
		opts = append(opts, mcp.Required())
	}
	return mcp.WithString("stage", opts...)
}

// tool builds a tool from its name, description and options; it is
// read-only to clients exactly when toolRules says it only reads.
func tool(name, desc string, opts ...mcp.ToolOption) mcp.Tool {
	readOnly := toolRules[name].access == reads
	all := append([]mcp.ToolOption{mcp.WithDescription(desc), mcp.WithReadOnlyHintAnnotation(readOnly),
		mcp.WithDestructiveHintAnnotation(false), mcp.WithOpenWorldHintAnnotation(false)}, opts...)
	return mcp.NewTool(name, all...)
}

// call opens the workspace a call names and runs do with its session,
// once the trust gate allows a tool that acts (toolRules); bad input and
// refusals become tool errors, as every fault does.
func (s *Server) call(req mcp.CallToolRequest, do func(w *served, sess *session.Session) (string, error)) (*mcp.CallToolResult, error) {
	rule, ok := toolRules[req.Params.Name]
	if !ok {
		// Nobody said whether it writes: it is refused, as one that does.
		return mcp.NewToolResultError(fmt.Sprintf("tool %q has no rule saying whether it writes, so icm refuses it: this is a bug in icm, please report it", req.Params.Name)), nil
	}
	w, err := s.workspaceNamed(req.GetString("workspace", ""))
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	sess, err := s.open(w)
	if err != nil {
		return mcp.NewToolResultError(faultText(err)), nil
	}
	defer sess.Close()
	if rule.access == acts {
		if err := s.guard(sess, rule.what); err != nil {
			return mcp.NewToolResultError(faultText(err)), nil
		}
	}
	text, err := do(w, sess)
	if err != nil {
		return mcp.NewToolResultError(faultText(err)), nil
	}
	return mcp.NewToolResultText(text), nil
}

// faultText is an error as the agent reads it: what went wrong, then what
// to do about it.
func faultText(err error) string {
	f := fault.From(err)
	if f == nil {
		return err.Error()
	}
	msg := f.Msg
	if f.Hint != "" {
		msg += "\nWhat to do: " + f.Hint + "."
	}
	return msg
}

// agentName is the name of the client calling, as runs and approvals
// record it: its own name, lowercased, with anything but letters,
// digits, dots, dashes and underscores made a dash.
func agentName(ctx context.Context) string {
	name := ""
	if cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		name = cs.GetClientInfo().Name
	}
	name = strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(strings.TrimSpace(name)), "-"), "-")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		name = "mcp-client"
	}
	return name
}

var unsafeName = regexp.MustCompile(`[^a-z0-9._-]+`)

// canElicit reports whether the client said it can ask its person for
// input (the elicitation capability).
func canElicit(ctx context.Context) bool {
	cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	return ok && cs.GetClientCapabilities().Elicitation != nil
}

func (s *Server) statusTool() (mcp.Tool, server.ToolHandlerFunc) {
	t := tool(toolStatus, "Show each stage's state (pending, awaiting review, approved, stale, failed, has errors), why, and what to do next.", s.workspaceArg()...)
	return t, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.call(req, func(w *served, sess *session.Session) (string, error) {
			p, _, err := sess.Status()
			if err != nil {
				return "", err
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Workspace %s (%s)\n", w.name, w.root)
			for _, ss := range p.Stages {
				f := state.FaceOf(ss, false, "")
				line := fmt.Sprintf("%s: %s", ss.Stage, f.Label)
				if f.Detail != "" {
					line += " (" + f.Detail + ")"
				}
				b.WriteString(line + "\n")
			}
			fmt.Fprintf(&b, "Next: %s\n", nextText(p.Next))
			return b.String(), nil
		})
	}
}

// nextText is the next step in words an agent can act on.
func nextText(n state.Next) string {
	switch n.Action {
	case state.ActionRun:
		return fmt.Sprintf("%s (do it yourself: probe %s, then submit_outputs; or run_stage)", n.Message, n.Stage)
	case state.ActionApprove:
		return fmt.Sprintf("%s (a person approves it: call request_review for %s and stop)", n.Message, n.Stage)
	}
	return n.Message
}

func (s *Server) nextTool() (mcp.Tool, server.ToolHandlerFunc) {
	t := tool(toolNext, "Say what to do next in the workspace: the stage to run or the one awaiting a person's review.", s.workspaceArg()...)
	return t, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.call(req, func(w *served, sess *session.Session) (string, error) {
			p, _, err := sess.Status()
			if err != nil {
				return "", err
			}
			out := nextText(p.Next)
			if p.Next.Action == state.ActionRun {
				out += "\nIts context: " + s.uri(w, p.Next.Stage, kindContext, 0)
			}
			return out + "\n", nil
		})
	}
}

func (s *Server) checkTool() (mcp.Tool, server.ToolHandlerFunc) {
	opts := append(s.workspaceArg(), stageArg(false, "Only this stage's findings, e.g. 01-scope; leave it out for all."))
	t := tool(toolCheck, "Check the workspace's stage contracts and list the findings, file:line:col first. An error means a stage cannot run as written.", opts...)
	return t, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.call(req, func(_ *served, sess *session.Session) (string, error) {
			return checkText(sess, req.GetString("stage", ""))
		})
	}
}

func (s *Server) probeTool() (mcp.Tool, server.ToolHandlerFunc) {
	opts := append(s.workspaceArg(),
		stageArg(true, "The stage, e.g. 01-scope."),
		mcp.WithInteger("item", mcp.Description("For a For each stage, the item to show (1-based); leave it out for the stage."), mcp.Min(1)))
	t := tool(toolProbe, "Get a stage's exact context as icm sends it to its model: system and user text, token counts, and its context_id. Read it before doing a stage's work yourself, and hand its context_id to submit_outputs.", opts...)
	return t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.call(req, func(_ *served, sess *session.Session) (string, error) {
			doc, _, err := s.probeDoc(ctx, sess, req.GetString("stage", ""), req.GetInt("item", 0), true)
			if err != nil {
				return "", err
			}
			data, err := doc.JSON()
			return string(data), err
		})
	}
}
