package lsp

import (
	"context"
	"time"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/session"
)

// approve runs icm.approveStage: it records approval of a stage (the
// code behind `icm approve`), judged with the editor's model setting as
// runs from the editor are.
func approve(ctx context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	op, err := w.OpenSession()
	if err != nil {
		return nil, err
	}
	defer op.Release()
	if _, err := op.Session().Reviews().Approve(ctx, args.Stage, session.ApproveRequest{Force: args.Force, Note: args.Note}); err != nil {
		return nil, err
	}
	w.Touch(false)
	e.statusChanged(w)
	return map[string]bool{"approved": true}, nil
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

// outputs runs icm.outputs: a stage's current outputs (as its state
// counts them) and the versions kept in history/versions/<stage>/, newest
// first.
func outputs(_ context.Context, _ *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	op, err := w.OpenSession()
	if err != nil {
		return nil, err
	}
	defer op.Release()
	o, err := op.Session().Reviews().Outputs(args.Stage)
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
