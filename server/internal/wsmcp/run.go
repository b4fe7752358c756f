package wsmcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

func (s *Server) runTool() (mcp.Tool, server.ToolHandlerFunc) {
	opts := append(s.workspaceArg(), stageArg(false, "The stage to run, e.g. 02-research; leave it out for the next stage that needs running."))
	t := tool(toolRun, "Run a stage with icm's own model, as `icm run` does, and stop at its review gate. Use it for Script stages or when the person wants icm's model; to do a stage's work yourself, use probe and submit_outputs instead.", opts...)
	return t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.call(req, func(_ *served, sess *session.Session) (string, error) {
			progress := s.progress(ctx, req)
			run, err := sess.Runs().New(session.RunRequest{Stage: req.GetString("stage", "")}, progress)
			if err != nil {
				return "", err
			}
			sum, err := run.Execute(ctx)
			defer s.changed()
			if err != nil {
				return "", err
			}
			return summaryText(sum, ""), nil
		})
	}
}

// progress sends the run's events as notifications/progress when the
// call asked for them (a progress token); nil otherwise.
func (s *Server) progress(ctx context.Context, req mcp.CallToolRequest) func(report.Event) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	token := req.Params.Meta.ProgressToken
	n := 0
	return func(ev report.Event) {
		if ev.Kind == report.EventDelta || ev.Message == "" {
			return
		}
		n++
		msg := ev.Message
		if ev.Stage != "" && !strings.HasPrefix(msg, ev.Stage) {
			msg = ev.Stage + ": " + msg
		}
		_ = s.mcp.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
			"progressToken": token, "progress": n, "message": msg,
		})
	}
}

// summaryText says what a run did and where it stopped.
func summaryText(sum *report.Summary, agent string) string {
	var b strings.Builder
	for _, r := range sum.Ran {
		by := ""
		if agent != "" {
			by = ", handed in by " + state.AgentPrefix + agent
		}
		fmt.Fprintf(&b, "Run %s of %s: %s%s.\n", sum.RunID, r.Stage, r.Status, by)
		for _, o := range r.Outputs {
			fmt.Fprintf(&b, "Wrote %s\n", o)
		}
		writeChecks(&b, r)
		if r.ReviewGate != "" {
			fmt.Fprintf(&b, "At the review gate the person checks:\n%s\n", r.ReviewGate)
		}
	}
	for _, a := range sum.Approved {
		fmt.Fprintf(&b, "%s was approved by its gate.\n", a)
	}
	if len(sum.Ran) == 0 {
		b.WriteString("Nothing needed running.\n")
	}
	fmt.Fprintf(&b, "Next: %s\n", nextText(sum.Next))
	return b.String()
}

// writeChecks lists Verify's and the rubrics' results, failures with
// their findings.
func writeChecks(b *strings.Builder, r *report.StageResult) {
	failed := 0
	for _, v := range r.Verify {
		if !v.OK {
			failed++
		}
	}
	if n := len(r.Verify); n > 0 {
		if failed == 0 {
			fmt.Fprintf(b, "Verify: %d of %d checks pass.\n", n, n)
		} else {
			fmt.Fprintf(b, "Verify: %d of %d checks fail:\n", failed, n)
		}
	}
	for _, v := range r.Verify {
		if v.OK {
			continue
		}
		for _, f := range v.Findings {
			loc := f.File
			if f.Line > 0 {
				loc = fmt.Sprintf("%s:%d", f.File, f.Line)
			}
			fmt.Fprintf(b, "- %s (%s): %s\n", v.Check, loc, f.Message)
		}
		if len(v.Findings) == 0 {
			fmt.Fprintf(b, "- %s failed\n", v.Check)
		}
	}
	if line := state.RubricLine(r.Rubric); line != "" {
		fmt.Fprintf(b, "Rubric: %s.\n", line)
	}
}
