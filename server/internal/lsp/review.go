package lsp

import (
	"context"
	"time"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// approve records approval of a stage (the code behind `icm approve`),
// judged with the editor's model setting as runs from the editor are.
func (s *Server) approve(ctx context.Context, st *snapshot.Workspace, stage string, force bool) error {
	op, err := st.OpenSession()
	if err != nil {
		return err
	}
	sess := op.Session()
	defer op.Release()
	if _, err := sess.Approve(ctx, stage, force); err != nil {
		return err
	}
	st.Touch(false)
	s.statusMayHaveChanged(st)
	return nil
}

// outputInfo is one output file in icm.outputs.
type outputInfo struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// previousOutput is one kept version in icm.outputs.
type previousOutput struct {
	Path  string `json:"path"`
	RunID string `json:"runId"`
	Time  string `json:"time"`
}

// outputsResult is what icm.outputs returns.
type outputsResult struct {
	Outputs  []outputInfo     `json:"outputs"`
	Previous []previousOutput `json:"previous"`
}

// outputs lists a stage's current outputs (as its state counts them) and
// the versions kept in history/versions/<stage>/, newest first.
func (s *Server) outputs(st *snapshot.Workspace, stage string) (*outputsResult, error) {
	op, err := st.OpenSession()
	if err != nil {
		return nil, err
	}
	sess := op.Session()
	defer op.Release()
	o, err := sess.Outputs(stage)
	if err != nil {
		return nil, err
	}
	out := &outputsResult{Outputs: []outputInfo{}, Previous: []previousOutput{}}
	for _, c := range o.Current {
		out.Outputs = append(out.Outputs, outputInfo{Path: c.Path, Exists: c.Exists})
	}
	for _, p := range o.Previous {
		out.Previous = append(out.Previous, previousOutput{Path: p.Path, RunID: p.RunID, Time: p.Time.UTC().Format(time.RFC3339)})
	}
	return out, nil
}
