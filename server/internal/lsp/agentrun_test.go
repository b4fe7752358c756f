package lsp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// TestAnAgentRunInTheRunsView: a stage a coding agent handed in over
// MCP reads in icm.runs as the agent's (the stage's node names it; no
// '0 in / 0 out'), and its call document says what icm counted, naming
// no window no model asked for.
func TestAnAgentRunInTheRunsView(t *testing.T) {
	s := newSession(t)
	ws, err := workspace.Open(s.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := check.Run(ws, check.Options{})
	sr := rep.Stage("01-scope")
	cx, err := assemble.Stage(ws, sr.Stage, sr.Contract, assemble.Options{ProducedBy: rep.ProducedBy})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := workflow.New(ws, workflow.Options{Stage: "01-scope", Submission: &workflow.Submission{Agent: "claude-code", ContextID: cx.ID(),
		Files: []writeout.File{{Path: "output/objectives.md", Content: "1. Install Ollama.\n2. Run a model.\n"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	raw, err := s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Runs []struct {
			Stages []struct {
				Text, Agent string
				Children    []struct{ Kind, Text, URI string }
			}
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 1 || len(r.Runs[0].Stages) != 1 {
		t.Fatalf("runs = %s", raw)
	}
	st := r.Runs[0].Stages[0]
	if st.Agent != "agent:claude-code" || !strings.Contains(st.Text, "handed in by agent:claude-code over MCP") || len(st.Children) == 0 || st.Children[0].URI == "" {
		t.Fatalf("the agent's stage = %+v", st)
	}
	raw, err = s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": st.Children[0].URI})
	if err != nil {
		t.Fatal(err)
	}
	var vd struct{ Text string }
	_ = json.Unmarshal(raw, &vd)
	if !strings.Contains(vd.Text, "· icm counted ") || strings.Contains(vd.Text, "window") || !strings.Contains(vd.Text, "Handed in over MCP by agent:claude-code") {
		t.Errorf("the agent's call document:\n%s", vd.Text)
	}
}
