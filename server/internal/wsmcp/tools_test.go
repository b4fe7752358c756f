package wsmcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/icm-tool/icm/server/internal/session"
)

// unopened is a server whose workspace never opens: enough to list its
// tools and call them up to the session.
func unopened(t *testing.T) *Server {
	t.Helper()
	return New(Deps{Roots: []string{"/nowhere/course"}, AllowApprove: true,
		Open: func(string) (*session.Session, error) { return nil, errors.New("not opened in this test") }})
}

// TestEveryToolIsClassified: every tool the server offers (approve_stage
// too) has a rule saying whether it reads, asks or acts, and tells
// clients it is read-only exactly when it only reads; no rule names a
// tool that is gone. A new tool fails here until it is classified.
func TestEveryToolIsClassified(t *testing.T) {
	s := unopened(t)
	tools := s.MCP().ListTools()
	if len(tools) < len(toolRules) {
		t.Fatalf("%d tools offered, %d classified: the approve tool is missing", len(tools), len(toolRules))
	}
	for name, st := range tools {
		rule, ok := toolRules[name]
		if !ok {
			t.Errorf("tool %s has no rule in toolRules: say whether it reads, asks or acts", name)
			continue
		}
		if rule.access == acts && rule.what == "" {
			t.Errorf("tool %s acts but its rule does not say what the refusal names", name)
		}
		hint := st.Tool.Annotations.ReadOnlyHint
		if hint == nil || *hint != (rule.access == reads) {
			t.Errorf("tool %s: readOnlyHint %v, but its rule is %d", name, hint, rule.access)
		}
	}
	for name := range toolRules {
		if _, ok := tools[name]; !ok {
			t.Errorf("toolRules names %s, which the server does not offer", name)
		}
	}
}

// TestAnUnclassifiedToolIsRefused: a tool added without a rule is
// refused before any workspace is opened, as one that acts would be.
func TestAnUnclassifiedToolIsRefused(t *testing.T) {
	s := unopened(t)
	ran := false
	var req mcp.CallToolRequest
	req.Params.Name = "unclassified"
	res, err := s.call(req, func(*served, *session.Session) (string, error) {
		ran = true
		return "done", nil
	})
	if err != nil || res == nil || !res.IsError || ran {
		t.Fatalf("an unclassified tool was not refused: %+v, %v (ran %v)", res, err, ran)
	}
	if text, _ := mcp.AsTextContent(res.Content[0]); text == nil || !strings.Contains(text.Text, "no rule") {
		t.Errorf("the refusal does not say why: %+v", res.Content)
	}
}
