package workflow

import (
	"fmt"
	"github.com/icm-tool/icm/server/internal/state"
	"strings"
	"time"
)

// Kinds of run tree nodes.
const (
	NodeStage  = "stage"
	NodeItem   = "item"
	NodeModel  = "model"
	NodeTool   = "tool"
	NodeVerify = "verify"
)

// RunNode is one line of a run as a tree: a stage, a For each item, a
// model call, a tool call or a Verify result. `icm history --run` prints
// the tree and the editor's run view shows it, with the same words.
type RunNode struct {
	Kind string `json:"kind"`
	// Text is the line: "model qwen3.5:9b  2479 in / 312 out  4.1s".
	Text string `json:"text"`
	// Stage, Index (the For each item, 0 for none) and Call (the model or
	// tool call's number within its stage or item) say which call a node
	// is, so its request and reply can be opened (FindExchange).
	Stage string `json:"stage"`
	Index int    `json:"index,omitempty"`
	Call  int    `json:"call,omitempty"`
	// Error says what failed, when something did.
	Error        string        `json:"error,omitempty"`
	PromptTokens int           `json:"promptTokens,omitempty"`
	OutputTokens int           `json:"outputTokens,omitempty"`
	Duration     time.Duration `json:"duration,omitempty"`
	// Args are a tool call's arguments; Size its result's size in bytes.
	Args     map[string]any `json:"args,omitempty"`
	Size     int            `json:"size,omitempty"`
	Children []*RunNode     `json:"children,omitempty"`

	start, end time.Time
	title      string
}

// RunTree turns a run's trace into one node per stage, with each stage's
// model calls, tool calls and Verify results under it (a For each item's
// under the item, which carries its wall time and tokens).
func RunTree(r *RunSummary) []*RunNode {
	out := make([]*RunNode, 0, len(r.Stages))
	for _, s := range r.Stages {
		n := &RunNode{Kind: NodeStage, Stage: s.Stage, PromptTokens: s.Prompt, OutputTokens: s.Output, Duration: s.Duration, Error: s.Error,
			Text: fmt.Sprintf("%s  %s  %s  %d in / %d out", s.Stage, s.Status, s.Duration.Round(10*time.Millisecond), s.Prompt, s.Output)}
		if s.ToolErrors > 0 {
			n.Text += fmt.Sprintf("  (%d of %d tool calls failed)", s.ToolErrors, s.ToolCalls)
		}
		n.Children = stageNodes(r.Events, s.Stage)
		out = append(out, n)
	}
	return out
}

func stageNodes(events []Event, stage string) []*RunNode {
	var nodes []*RunNode
	items := map[int]*RunNode{}
	itemOf := func(ev Event) *RunNode {
		it, ok := items[ev.Index]
		if !ok {
			it = &RunNode{Kind: NodeItem, Stage: stage, Index: ev.Index, title: fmt.Sprintf("[%d/%d] %s", ev.Index, ev.Count, ev.Item), start: ev.Time}
			items[ev.Index] = it
			nodes = append(nodes, it)
		}
		return it
	}
	for _, ev := range events {
		if ev.Stage != stage {
			continue
		}
		var leaf *RunNode
		switch ev.Kind {
		case EventItemStart:
			itemOf(ev).start = ev.Time
		case EventItemEnd:
			it := itemOf(ev)
			it.end = ev.Time
			if strings.Contains(ev.Message, "kept from") {
				it.title += "  (kept from an interrupted run)"
			}
		case EventModel:
			m := ev.Model
			if m == nil {
				continue
			}
			leaf = &RunNode{Kind: NodeModel, Stage: stage, Index: ev.Index, Call: m.Call, PromptTokens: m.PromptTokens, OutputTokens: m.OutputTokens,
				Duration: m.Duration, Error: m.Err,
				Text: fmt.Sprintf("model %s  %d in / %d out  %s", m.Model, m.PromptTokens, m.OutputTokens, m.Duration.Round(10*time.Millisecond))}
			if m.DoneReason != "" && m.DoneReason != "stop" {
				leaf.Text += "  (" + m.DoneReason + ")"
			}
			if m.Err != "" {
				leaf.Text += "  error: " + clipLine(m.Err)
			}
			if ev.Count > 0 {
				it := itemOf(ev)
				it.PromptTokens += m.PromptTokens
				it.OutputTokens += m.OutputTokens
			}
		case EventTool:
			t := ev.Tool
			if t == nil {
				continue
			}
			leaf = &RunNode{Kind: NodeTool, Stage: stage, Index: ev.Index, Call: t.Call, Args: t.Args, Size: t.ResultSize, Duration: t.Duration,
				Text: fmt.Sprintf("tool %s  %s  %s", t.Name, byteSize(t.ResultSize), t.Duration.Round(10*time.Millisecond))}
			if t.IsError {
				leaf.Error = t.Err
				leaf.Text += "  error: " + clipLine(t.Err)
			}
		case EventVerify:
			leaf = &RunNode{Kind: NodeVerify, Stage: stage, Text: ev.Message}
			for _, v := range ev.Verify {
				if !v.OK {
					leaf.Error = v.Check + " failed"
					break
				}
			}
			if _, _, first := state.RubricCount(ev.Rubric); first != "" && leaf.Error == "" {
				leaf.Error = "rubric: " + first
			}
		}
		if leaf == nil {
			continue
		}
		if ev.Count > 0 {
			it := itemOf(ev)
			it.Children = append(it.Children, leaf)
		} else {
			nodes = append(nodes, leaf)
		}
	}
	for _, n := range nodes {
		if n.Kind != NodeItem {
			continue
		}
		took := "unfinished"
		if !n.end.IsZero() {
			n.Duration = n.end.Sub(n.start)
			took = n.Duration.Round(10 * time.Millisecond).String()
		}
		n.Text = fmt.Sprintf("%s  %s  %d in / %d out", n.title, took, n.PromptTokens, n.OutputTokens)
	}
	return nodes
}

// byteSize is a size for people: 812 B, 14.2 KB.
func byteSize(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

// clipLine is the first line of s, cut to fit a tree row.
func clipLine(s string) string {
	line := firstLine(strings.TrimSpace(s))
	if r := []rune(line); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return line
}
