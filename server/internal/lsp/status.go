package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/state"
)

// WorkspaceStatus is the result of icm.status and the params of
// icm/statusChanged (docs/lsp-protocol.md).
type WorkspaceStatus struct {
	Workspace string        `json:"workspace"`
	Name      string        `json:"name"`
	Running   *RunningInfo  `json:"running"`
	Next      state.Next    `json:"next"`
	Stages    []StageStatus `json:"stages"`
	// Trust is whether icm may act for the workspace (trust.go).
	Trust TrustStatus `json:"trust"`
	Error string      `json:"error,omitempty"`
}

// RunningInfo describes the run going on in a workspace.
type RunningInfo struct {
	Stage string `json:"stage"`
	RunID string `json:"runId"`
	Item  int    `json:"item"`
	Items int    `json:"items"`
	// Done counts the For each items finished so far.
	Done int `json:"done"`
}

// StageStatus is one stage in a WorkspaceStatus.
type StageStatus struct {
	Name         string     `json:"name"`
	Status       string     `json:"status"`
	Reason       string     `json:"reason"`
	Contract     string     `json:"contract"`
	Outputs      []string   `json:"outputs"`
	Tokens       int        `json:"tokens"`
	Items        int        `json:"items"`
	LastRun      *time.Time `json:"lastRun,omitempty"`
	VerifyFailed bool       `json:"verifyFailed"`
	// Rubric sums up the review rubrics' checks of the last run
	// ("3 of 4 rubric checks pass: ..."); RubricFailed is set when one
	// failed; ReviewGate is the contract's Review Gate checklist.
	Rubric       string   `json:"rubric,omitempty"`
	RubricFailed bool     `json:"rubricFailed,omitempty"`
	ReviewGate   []string `json:"reviewGate,omitempty"`
	// Face is how the state reads: the same words and icon in every face.
	Face state.Face `json:"face"`
	// LastRunStats are the last finished run's real figures.
	LastRunStats *lastRunStats `json:"lastRunStats,omitempty"`
	// Calls and StageTokens are the whole stage's first calls: one for a
	// plain stage, one per item for a For each stage.
	Calls       int `json:"calls,omitempty"`
	StageTokens int `json:"stageTokens,omitempty"`
	// Downstream are the stages that read this one's outputs, directly or
	// through others: the ones a new output makes stale.
	Downstream []string `json:"downstream"`
}

// lastRunStats is what a stage's last finished run used.
type lastRunStats struct {
	RunID        string `json:"runId"`
	Model        string `json:"model,omitempty"`
	PromptTokens int    `json:"promptTokens"`
	OutputTokens int    `json:"outputTokens"`
	DurationMs   int64  `json:"durationMs"`
	ModelCalls   int    `json:"modelCalls"`
	ToolCalls    int    `json:"toolCalls"`
	ToolErrors   int    `json:"toolErrors,omitempty"`
}

// statsOf reads a run record's figures; nil when the stage never finished a run.
func statsOf(r *state.Record) *lastRunStats {
	if r == nil || r.Status != state.RunDone {
		return nil
	}
	return &lastRunStats{RunID: r.RunID, Model: r.Model, PromptTokens: r.PromptTokens, OutputTokens: r.OutputTokens,
		DurationMs: r.Finished.Sub(r.Started).Milliseconds(), ModelCalls: r.ModelCalls, ToolCalls: r.ToolCalls, ToolErrors: r.ToolErrors}
}

// statusRunning is the status shown for the stage a run is working on.
const statusRunning = "running"

// status derives a workspace's state from disk (state.Pipeline, as `icm
// status` does), adds the token counts and item counts of the latest
// analysis, and marks the stage being run.
func (s *Server) status(ctx context.Context, st *snapshot.Workspace) WorkspaceStatus {
	out := WorkspaceStatus{Workspace: st.Root(), Name: filepath.Base(st.Root()), Stages: []StageStatus{}}
	op, err := st.OpenSession()
	if err != nil {
		out.Error = err.Error()
		return out
	}
	sess := op.Session()
	defer op.Release()
	out.Trust = trustStatus(sess.Trust())
	disk := sess.Workspace()
	p, rep, err := sess.Status()
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Next = p.Next
	down := check.Downstream(rep)
	a, _ := st.Snapshot(ctx)
	defer a.Release()
	running := s.runs.running(st.Root())
	out.Running = running
	for i, ss := range p.Stages {
		stg := disk.Stages[i]
		row := StageStatus{Name: ss.Stage, Status: string(ss.Status), Reason: ss.Reason, Contract: stg.Contract,
			Outputs: []string{}, Items: -1, LastRun: ss.LastRun, VerifyFailed: ss.VerifyFailed,
			Face: state.FaceOf(ss, false, ""), LastRunStats: statsOf(ss.Record), Downstream: down[stg.Name]}
		if sr := rep.Stage(stg.Name); sr != nil && sr.Contract != nil {
			c := sr.Contract
			reviewOf(&row, ss, c)
			for _, rel := range state.OutputPaths(disk, stg, c) {
				row.Outputs = append(row.Outputs, disk.Abs(rel))
			}
		}
		if a != nil && a.Report() != nil {
			if sr := a.Report().Stage(stg.Name); sr != nil {
				row.Items = sr.Items
				if sr.Context != nil {
					row.Tokens = sr.Context.Total
				}
			}
			if n := a.Count(stg.Name); n != nil {
				row.Calls, row.StageTokens = max(1, len(n.Items)), n.Total.Tokens
			}
		}
		if running != nil && running.Stage == stg.Name {
			row.Status, row.Reason = statusRunning, "a run is working on it"
			row.Face = state.FaceOf(ss, true, runningDetail(running))
		}
		if row.Downstream == nil {
			row.Downstream = []string{}
		}
		out.Stages = append(out.Stages, row)
	}
	return out
}

// runningDetail says how far a run has come: "2 of 4 items done".
func runningDetail(r *RunningInfo) string {
	if r.Items > 0 {
		return fmt.Sprintf("%d of %d items done", r.Done, r.Items)
	}
	return "a run is working on it"
}

// statusMayHaveChanged sends icm/statusChanged when the workspace's status
// differs from the one last sent. It works off the read loop.
func (s *Server) statusMayHaveChanged(st *snapshot.Workspace) {
	s.goBackground(func() {
		// One at a time per workspace, so statuses reach the client in order.
		e := s.statuses.entry(st.Root())
		e.sending.Lock()
		defer e.sending.Unlock()
		ws := s.status(st.Context(), st)
		raw, err := json.Marshal(ws)
		if err != nil {
			return
		}
		if !s.statuses.put(ws, sha256.Sum256(raw)) {
			return
		}
		if err := s.notify(notifyStatusChanged, ws); err != nil {
			s.log.Info("unable to send the status", "err", err)
			return
		}
		s.refreshLenses(st.Context())
	})
}

// refreshLenses asks the client to fetch code lenses again (their state
// and Approve lenses change with the status), when it supports that.
func (s *Server) refreshLenses(ctx context.Context) {
	if !s.clientSupports(func(c protocol.ClientCapabilities) bool {
		w := c.Workspace
		return w != nil && w.CodeLens != nil && w.CodeLens.RefreshSupport != nil && *w.CodeLens.RefreshSupport
	}) {
		return
	}
	if err := s.call(ctx, protocol.ServerWorkspaceCodeLensRefresh, nil, nil); err != nil {
		s.log.Info("the client did not refresh code lenses", "err", err)
	}
}
