package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/report"
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
	// Count and Text are how far it has come in words, the running
	// stage's face detail (Text) and its short form (Count): "2 of 4
	// items done" and "2 of 4 items done · running item 3: Setup".
	Count string `json:"count,omitempty"`
	Text  string `json:"text,omitempty"`
}

// StageStatus is one stage in a WorkspaceStatus.
type StageStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	// Kept is, for a config error, the state kept until the setting is
	// fixed ("approved").
	Kept         string     `json:"kept,omitempty"`
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
	// Context is the context in words, as the lens says it ("~1.2k
	// tokens", "4 calls, ~5.2k tokens").
	Context string `json:"context,omitempty"`
	// Downstream are the stages that read this one's outputs, directly or
	// through others: the ones a new output makes stale.
	Downstream []string `json:"downstream"`
	// Gate is the gate summary's lines of a stage awaiting review, as
	// icm/runFinished has them.
	Gate []report.GateLine `json:"gate,omitempty"`
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
	// Text is the figures in words, as the hover says them.
	Text string `json:"text"`
}

// statsOf reads a run record's figures; nil when the stage never finished a run.
func statsOf(r *state.Record) *lastRunStats {
	if r == nil || r.Status != state.RunDone {
		return nil
	}
	return &lastRunStats{RunID: r.RunID, Model: r.Model, PromptTokens: r.PromptTokens, OutputTokens: r.OutputTokens,
		DurationMs: r.Finished.Sub(r.Started).Milliseconds(), ModelCalls: r.ModelCalls, ToolCalls: r.ToolCalls, ToolErrors: r.ToolErrors,
		Text: snapshot.RecordText(r)}
}

// statusOf is a workspace's status on the wire.
func statusOf(st *snapshot.Status) WorkspaceStatus {
	out := WorkspaceStatus{Workspace: st.Root, Name: st.Name, Next: st.Next, Stages: []StageStatus{}}
	if st.Trust != nil {
		out.Trust = trustStatus(*st.Trust)
	}
	if st.Err != nil {
		out.Error = st.Err.Error()
	}
	if r := st.Running; r != nil {
		count, text := r.Words()
		out.Running = &RunningInfo{Stage: r.Stage, RunID: r.RunID, Item: r.Item, Items: r.Items, Done: r.Done, Count: count, Text: text}
	}
	for _, row := range st.Stages {
		out.Stages = append(out.Stages, stageStatusOf(row))
	}
	return out
}

// stageStatusOf is a stage's row of the status on the wire.
func stageStatusOf(row snapshot.StageRow) StageStatus {
	out := StageStatus{Name: row.Name, Status: row.Status, Reason: row.Reason, Kept: row.Kept, Contract: row.Contract, Outputs: row.Outputs,
		Tokens: row.Tokens, Items: row.Items, LastRun: row.LastRun, VerifyFailed: row.VerifyFailed,
		Rubric: row.Rubric, RubricFailed: row.RubricFailed, ReviewGate: row.ReviewGate, Face: row.Face,
		LastRunStats: statsOf(row.Record), Calls: row.Calls, StageTokens: row.StageTokens, Context: row.Context, Downstream: row.Downstream,
		Gate: row.Gate.Lines(nil)}
	if out.Outputs == nil {
		out.Outputs = []string{}
	}
	if out.Downstream == nil {
		out.Downstream = []string{}
	}
	return out
}

// statusCommand runs icm.status: the status of the workspace named, or
// of every workspace known.
func statusCommand(ctx context.Context, e *env, args commandArgs) (any, error) {
	list := e.set.All()
	if args.Workspace != "" {
		w, err := e.workspace(args)
		if err != nil {
			return nil, err
		}
		list = []*snapshot.Workspace{w}
	}
	out := make([]WorkspaceStatus, 0, len(list))
	for _, w := range list {
		out = append(out, statusOf(w.Status(ctx)))
	}
	return map[string]any{"workspaces": out, "states": legend()}, nil
}

// statusChanged sends icm/statusChanged when the workspace's status
// differs from the one last sent, and then asks the client to refresh its
// lenses. It works off the read loop.
func (e *env) statusChanged(w *snapshot.Workspace) {
	e.bg.Go(func() {
		// One at a time per workspace, so statuses reach the client in order.
		sent := e.statuses.entry(w.Root())
		sent.sending.Lock()
		defer sent.sending.Unlock()
		status := w.Status(w.Context())
		ws := statusOf(status)
		raw, err := json.Marshal(ws)
		if err != nil {
			return
		}
		w.Shown(status)
		if !e.statuses.sent(sent, sha256.Sum256(raw)) {
			return
		}
		if err := e.client.notify(notifyStatusChanged, ws); err != nil {
			e.log.Info("unable to send the status", "err", err)
			return
		}
		e.client.refreshLenses(w.Context())
	})
}

// statusCache keeps what was last sent of each workspace's status.
type statusCache struct {
	mu sync.Mutex
	m  map[string]*sentStatus
}

// sentStatus is the status last sent for one workspace.
type sentStatus struct {
	// sending is held while a status is made and sent, so statuses reach
	// the client in order.
	sending sync.Mutex
	hash    [32]byte // of the last one, as sent
}

func (c *statusCache) entry(root string) *sentStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*sentStatus{}
	}
	e, ok := c.m[root]
	if !ok {
		e = &sentStatus{}
		c.m[root] = e
	}
	return e
}

// sent records that a status whose JSON hashes to h is the last one, and
// reports whether it differs from the one before.
func (c *statusCache) sent(e *sentStatus, h [32]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	same := e.hash == h
	e.hash = h
	return !same
}
