package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

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
	Error     string        `json:"error,omitempty"`
}

// RunningInfo describes the run going on in a workspace.
type RunningInfo struct {
	Stage string `json:"stage"`
	RunID string `json:"runId"`
	Item  int    `json:"item"`
	Items int    `json:"items"`
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
}

// statusRunning is the status shown for the stage a run is working on.
const statusRunning = "running"

// status derives a workspace's state from disk (state.Pipeline, as `icm
// status` does), adds the token counts and item counts of the latest
// analysis, and marks the stage being run.
func (s *Server) status(ctx context.Context, st *wsState) WorkspaceStatus {
	out := WorkspaceStatus{Workspace: st.root, Name: filepath.Base(st.root), Stages: []StageStatus{}}
	sess, err := st.openSession()
	if err != nil {
		out.Error = err.Error()
		return out
	}
	defer sess.Close()
	disk := sess.Workspace()
	p, rep, err := sess.Status()
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Next = p.Next
	a, _ := st.current(ctx)
	running := s.runs.running(st.root)
	out.Running = running
	for i, ss := range p.Stages {
		stg := disk.Stages[i]
		row := StageStatus{Name: ss.Stage, Status: string(ss.Status), Reason: ss.Reason, Contract: stg.Contract,
			Outputs: []string{}, Items: -1, LastRun: ss.LastRun, VerifyFailed: ss.VerifyFailed}
		if sr := rep.Stage(stg.Name); sr != nil && sr.Contract != nil {
			c := sr.Contract
			for _, rel := range state.OutputPaths(disk, stg, c) {
				row.Outputs = append(row.Outputs, disk.Abs(rel))
			}
		}
		if a != nil && a.report != nil {
			if sr := a.report.Stage(stg.Name); sr != nil {
				row.Items = sr.Items
				if sr.Context != nil {
					row.Tokens = sr.Context.Total
				}
			}
		}
		if running != nil && running.Stage == stg.Name {
			row.Status, row.Reason = statusRunning, "a run is working on it"
		}
		out.Stages = append(out.Stages, row)
	}
	return out
}

// statusMayHaveChanged sends icm/statusChanged when the workspace's status
// differs from the one last sent. It works off the read loop.
func (s *Server) statusMayHaveChanged(st *wsState) {
	s.goBackground(func() {
		// One at a time per workspace, so statuses reach the client in order.
		st.statusMu.Lock()
		defer st.statusMu.Unlock()
		ws := s.status(st.ctx, st)
		raw, err := json.Marshal(ws)
		if err != nil {
			return
		}
		h := sha256.Sum256(raw)
		st.mu.Lock()
		same := st.statusHash == h
		st.statusHash = h
		st.mu.Unlock()
		if same {
			return
		}
		if err := s.notify(notifyStatusChanged, ws); err != nil {
			s.log.Info("unable to send the status", "err", err)
			return
		}
		s.refreshLenses(st.ctx)
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
