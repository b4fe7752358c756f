package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/report"
)

// maxRuns bounds the runs icm.runs lists, newest first.
const maxRuns = 50

// runEntry is one run in icm.runs (docs/lsp-protocol.md).
type runEntry struct {
	ID           string    `json:"id"`
	Start        time.Time `json:"start"`
	DurationMs   int64     `json:"durationMs"`
	PromptTokens int       `json:"promptTokens"`
	OutputTokens int       `json:"outputTokens"`
	Finished     bool      `json:"finished"`
	// Status is how the run ended: done, failed, cancelled, refused
	// (it failed before any work), running or stopped (killed).
	Status string `json:"status"`
	// Item, ItemStage and Note say the run was one For each item run
	// again, and the person's note for it.
	Item      int        `json:"item,omitempty"`
	ItemStage string     `json:"itemStage,omitempty"`
	Note      string     `json:"note,omitempty"`
	Stages    []*runNode `json:"stages"`
	// Duration, Tokens and Tools are the figures in words: "12 s",
	// "4,504 tokens in / 312 out" (or who handed the outputs in over
	// MCP), "2 of 5 tool calls failed" ("" when none did).
	Duration string `json:"duration"`
	Tokens   string `json:"tokens"`
	Tools    string `json:"tools,omitempty"`
}

// runNode is one line of a run's tree, as `icm history --run` prints it.
type runNode struct {
	Kind         string         `json:"kind"`
	Text         string         `json:"text"`
	Stage        string         `json:"stage"`
	Index        int            `json:"index,omitempty"`
	Call         int            `json:"call,omitempty"`
	Error        string         `json:"error,omitempty"`
	PromptTokens int            `json:"promptTokens,omitempty"`
	OutputTokens int            `json:"outputTokens,omitempty"`
	DurationMs   int64          `json:"durationMs,omitempty"`
	Args         map[string]any `json:"args,omitempty"`
	Size         int            `json:"size,omitempty"`
	// URI opens a model call's request and reply, or a tool call's
	// arguments, result and error (icm-call:).
	URI string `json:"uri,omitempty"`
	// Agent is, on a stage, the agent:NAME that handed its outputs in
	// over MCP.
	Agent string `json:"agent,omitempty"`
	// Rerun, on a stage, is the For each item the run did again, and
	// Note the person's note for it.
	Rerun int    `json:"rerun,omitempty"`
	Note  string `json:"note,omitempty"`
	// Approval is, on a stage whose outputs from this run were approved,
	// who approved and why, as `icm history` says it: "approved by Ann,
	// past failing checks: the figures are from the notes".
	Approval string     `json:"approval,omitempty"`
	Children []*runNode `json:"children,omitempty"`
}

// runsOf runs icm.runs: a workspace's runs, newest first, each as its
// tree.
func runsOf(_ context.Context, _ *env, st *snapshot.Workspace, _ commandArgs) (any, error) {
	op, err := st.Acquire()
	if err != nil {
		return nil, err
	}
	defer op.Release()
	all, err := op.Session().History().Runs()
	if err != nil {
		return nil, err
	}
	// Newest first by when they started: run ids sort by the second only.
	sort.SliceStable(all, func(i, j int) bool { return all[i].Start.After(all[j].Start) })
	out := []runEntry{}
	for _, r := range all {
		if len(out) >= maxRuns {
			break
		}
		if len(r.Stages) == 0 {
			continue // a run that ran nothing
		}
		e := runEntry{ID: r.ID, Start: r.Start, DurationMs: r.Duration.Milliseconds(), PromptTokens: r.Prompt, OutputTokens: r.Output, Finished: r.Finished,
			Status: r.Status, Item: r.Item, ItemStage: r.ItemStage, Note: r.Note}
		var agents []string
		for _, n := range r.Tree {
			w := wireNode(st.Root(), r.ID, n)
			w.Approval = approvalWords(r, n)
			e.Stages = append(e.Stages, w)
			if n.Agent != "" && !slices.Contains(agents, n.Agent) {
				agents = append(agents, n.Agent)
			}
		}
		e.Duration, e.Tokens, e.Tools = human.Duration(r.Duration), human.InOut(r.Prompt, r.Output), runTools(r)
		if len(agents) > 0 && r.Prompt == 0 && r.Output == 0 {
			// No model of icm's read a token: a coding agent did the work.
			e.Tokens = "handed in by " + strings.Join(agents, ", ") + " over MCP"
		}
		out = append(out, e)
	}
	return map[string]any{"runs": out, "outcomes": outcomes}, nil
}

// approvalWords says who approved a stage node's outputs from run r and
// why; "" when they were not approved.
func approvalWords(r *report.RunSummary, n *report.RunNode) string {
	if n.Kind != report.NodeStage {
		return ""
	}
	for _, s := range r.Stages {
		if s.Stage == n.Stage && s.Approval != nil {
			return s.Approval.Words()
		}
	}
	return ""
}

// runTools is how many of a run's tool calls failed, in words; "" when
// none did.
func runTools(r *report.RunSummary) string {
	calls, failed := 0, 0
	for _, s := range r.Stages {
		calls, failed = calls+s.ToolCalls, failed+s.ToolErrors
	}
	if failed == 0 {
		return ""
	}
	return human.Failed(failed, calls, "tool call")
}

func wireNode(root, runID string, n *report.RunNode) *runNode {
	w := &runNode{Kind: n.Kind, Text: n.Text, Stage: n.Stage, Index: n.Index, Call: n.Call, Error: n.Error,
		PromptTokens: n.PromptTokens, OutputTokens: n.OutputTokens, DurationMs: n.Duration.Milliseconds(), Args: n.Args, Size: n.Size, Agent: n.Agent,
		Rerun: n.Rerun, Note: n.Note}
	switch {
	case n.Kind == report.NodeModel && n.Call > 0:
		w.URI = callURI(root, runID, n.Stage, n.Index, n.Call)
	case n.Kind == report.NodeTool && n.Call > 0:
		w.URI = toolURI(root, runID, n.Stage, n.Index, n.Call)
	}
	for _, c := range n.Children {
		w.Children = append(w.Children, wireNode(root, runID, c))
	}
	return w
}

// compareResult is what icm.compareOutput returns: the two sides of a
// diff, the model's version (read-only) and the file as it is.
type compareResult struct {
	Model   string `json:"model"`
	Current string `json:"current"`
	Title   string `json:"title"`
}

// compareOutput runs icm.compareOutput: it names the model's version of
// a stage's output (by path, or the stage's model output) for the client
// to diff with the file.
//
// With proposal set, path is a file outside output/ that the stage's last
// run proposes to change: the diff's left side ("model") is the file as
// it is ("" for a file not there yet) and its right ("current") the
// proposed change, read-only (icm-proposed:).
func compareOutput(_ context.Context, _ *env, st *snapshot.Workspace, args commandArgs) (any, error) {
	stage, path := args.Stage, args.Path
	op, err := st.Acquire()
	if err != nil {
		return nil, err
	}
	defer op.Release()
	if args.Proposal {
		pc, err := op.Session().Reviews().Proposal(stage, path)
		if err != nil {
			return nil, err
		}
		r := &compareResult{Current: proposedURI(pc.Target, stage), Title: fmt.Sprintf("%s: as it is ↔ proposed by %s", filepath.Base(pc.Target), stage)}
		if pc.New {
			r.Title = fmt.Sprintf("%s: a new file proposed by %s", filepath.Base(pc.Target), stage)
		} else {
			r.Model = uriOf(pc.Target)
		}
		return r, nil
	}
	mv, err := op.Session().Reviews().ModelVersion(stage, path)
	if err != nil {
		return nil, err
	}
	path = mv.Output
	name := filepath.Base(path)
	return &compareResult{Model: modelURI(path), Current: uriOf(path), Title: fmt.Sprintf("%s: the model's version ↔ yours", name)}, nil
}
