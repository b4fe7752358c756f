package workflow

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/report"

	"github.com/icm-tool/icm/server/internal/state"
)

// of is a run's tree: one node per stage, with each stage's model calls,
// tool calls and Verify results under it (a For each item's under the
// item, which carries its wall time and tokens). A run's tree holds at
// most maxTreeNodes nodes (History keeps trees for its newest runs only,
// within maxHistoryTreeNodes): a stage whose calls are left out says how
// many.
func (t *runTree) of(r *report.RunSummary) []*report.RunNode {
	out := make([]*report.RunNode, 0, len(r.Stages))
	for _, s := range r.Stages {
		n := &report.RunNode{Kind: report.NodeStage, Stage: s.Stage, PromptTokens: s.Prompt, OutputTokens: s.Output, Duration: s.Duration, Error: s.Error}
		what := s.Stage
		if r.Item > 0 && r.ItemStage == s.Stage {
			n.Rerun, n.Note = r.Item, r.Note
			what += fmt.Sprintf(" item %d again", r.Item)
			if r.Note != "" {
				what += fmt.Sprintf(" (note: %q)", clipLine(r.Note))
			}
		}
		switch {
		case s.Status == "running" && s.Items > 0:
			// A stage in progress: what it has done so far.
			n.Text = fmt.Sprintf("%s  running  %d of %d items done  %s so far", what, s.Done, s.Items, human.InOut(s.Prompt, s.Output))
		case s.Status == "running":
			n.Text = fmt.Sprintf("%s  running  %s so far", what, human.InOut(s.Prompt, s.Output))
		default:
			n.Text = fmt.Sprintf("%s  %s  %s  %s", what, s.Status, human.Duration(s.Duration), human.InOut(s.Prompt, s.Output))
		}
		if s.ToolErrors > 0 {
			n.Text += "  " + human.Failed(s.ToolErrors, s.ToolCalls, "tool call")
		}
		if p := s.Prefill; p != nil && p.Calls > 1 {
			n.Text += "  prefill: " + human.PrefillLeast(p.Prompt-p.Reused, p.Least)
		}
		st := t.stages[s.Stage]
		if st != nil && st.agent != "" && s.Prompt == 0 && s.Output == 0 {
			// No model of icm's read or wrote a token: say who did the work.
			n.Text = fmt.Sprintf("%s  %s  %s  handed in by %s over MCP", s.Stage, s.Status, human.Duration(s.Duration), st.agent)
			n.Agent = st.agent
		}
		if st != nil {
			n.Children = st.nodes
			if st.dropped > 0 {
				n.Text += fmt.Sprintf("  (%d more calls not shown)", st.dropped)
			}
		}
		out = append(out, n)
	}
	return out
}

// traceLine is what reading a run's summary and tree takes of a trace
// line: no request, no reply, no tool result, and names and errors
// clipped (see clip), so that what is kept of a line is small whatever
// the line holds.
type traceLine struct {
	Kind     string        `json:"kind"`
	Time     time.Time     `json:"time"`
	Stage    string        `json:"stage"`
	Item     string        `json:"item"`
	Index    int           `json:"index"`
	Count    int           `json:"count"`
	Message  string        `json:"message"`
	Note     string        `json:"note"`
	Err      string        `json:"error"`
	Status   string        `json:"status"`
	Duration time.Duration `json:"duration"`
	Model    *lineModel    `json:"model"`
	Tool     *lineTool     `json:"tool"`
	Verify   []struct {
		Check string `json:"check"`
		OK    bool   `json:"ok"`
	} `json:"verify"`
	Rubric []state.RubricCheck `json:"rubric"`
}

// lineModel is what a summary keeps of a model event.
type lineModel struct {
	Call           int           `json:"call"`
	Model          string        `json:"model"`
	DoneReason     string        `json:"done_reason"`
	Err            string        `json:"error"`
	Purpose        string        `json:"purpose"`
	PromptTokens   int           `json:"prompt_tokens"`
	OutputTokens   int           `json:"output_tokens"`
	PromptEstimate int           `json:"prompt_estimate"`
	Duration       time.Duration `json:"duration"`
	PromptEval     time.Duration `json:"prompt_eval"`
	Reused         int           `json:"reused"`
	Own            int           `json:"own"`
	ReuseMeasured  bool          `json:"reuse_measured"`
	ReuseBasis     string        `json:"reuse_basis"`
}

// UnmarshalJSON reads a model event in either key style (report.SnakeKeys).
func (m *lineModel) UnmarshalJSON(data []byte) error {
	type plain lineModel
	return unmarshalEither(data, (*plain)(m))
}

// lineTool is what a summary keeps of a tool event.
type lineTool struct {
	Call       int             `json:"call"`
	Name       string          `json:"name"`
	Err        string          `json:"error"`
	Args       json.RawMessage `json:"args"`
	ResultSize int             `json:"result_size"`
	Duration   time.Duration   `json:"duration"`
	IsError    bool            `json:"is_error"`
}

// UnmarshalJSON reads a tool event in either key style (report.SnakeKeys).
func (t *lineTool) UnmarshalJSON(data []byte) error {
	type plain lineTool
	return unmarshalEither(data, (*plain)(t))
}

// unmarshalEither decodes a model or tool event written with Go-name
// keys (before schema 2) or snake_case ones into v.
func unmarshalEither(data []byte, v any) error {
	data, err := report.SnakeKeys(data)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// maxArgsBytes bounds a tool call's arguments kept in a tree.
const maxArgsBytes = 4 << 10

// clip cuts what a line may hold to what a summary keeps.
func (l *traceLine) clip() {
	l.Stage, l.Item, l.Status = clip(l.Stage, maxNameBytes), clip(l.Item, maxNameBytes), clip(l.Status, maxNameBytes)
	l.Message, l.Err, l.Note = clip(l.Message, maxErrorBytes), clip(l.Err, maxErrorBytes), clip(l.Note, maxErrorBytes)
	if m := l.Model; m != nil {
		m.Model, m.DoneReason, m.Err, m.Purpose = clip(m.Model, maxNameBytes), clip(m.DoneReason, maxNameBytes), clip(m.Err, maxErrorBytes), clip(m.Purpose, maxNameBytes)
		m.ReuseBasis = clip(m.ReuseBasis, maxNameBytes)
	}
	if t := l.Tool; t != nil {
		t.Name, t.Err = clip(t.Name, maxNameBytes), clip(t.Err, maxErrorBytes)
		if len(t.Args) > maxArgsBytes {
			t.Args = nil
		}
	}
	if len(l.Verify) > 64 {
		l.Verify = l.Verify[:64]
	}
	if len(l.Rubric) > 64 {
		l.Rubric = l.Rubric[:64]
	}
	for i := range l.Rubric {
		r := &l.Rubric[i]
		r.Rubric, r.Output, r.Section, r.Kind, r.Item = clip(r.Rubric, maxNameBytes), clip(r.Output, maxNameBytes), clip(r.Section, maxNameBytes), clip(r.Kind, maxNameBytes), clip(r.Item, maxNameBytes)
		r.Message = clip(r.Message, maxErrorBytes)
	}
}

// runTree is a run's tree as its trace is read, one line at a time,
// within a bound on its nodes.
type runTree struct {
	max, nodes int
	stages     map[string]*stageTree
}

// stageTree is one stage's part of a run's tree.
type stageTree struct {
	nodes []*report.RunNode
	items map[int]*itemNode
	// dropped counts the nodes past the tree's bound.
	dropped int
	// agent is the agent:NAME that handed the stage's outputs in, when
	// a coding agent ran it over MCP.
	agent string
}

// itemNode is a For each item's node with what its line is made of once
// the item's end is known.
type itemNode struct {
	*report.RunNode
	start, end time.Time
	title      string
}

func newRunTree(max int) *runTree {
	return &runTree{max: max, stages: map[string]*stageTree{}}
}

// room takes a node's place in the tree; false past its bound.
func (t *runTree) room(st *stageTree) bool {
	if t.nodes >= t.max {
		st.dropped++
		return false
	}
	t.nodes++
	return true
}

// add places one line of the trace.
func (t *runTree) add(ev *traceLine) {
	switch ev.Kind {
	case report.EventItemStart, report.EventItemEnd, report.EventModel, report.EventTool, report.EventVerify:
	default:
		return
	}
	st := t.stages[ev.Stage]
	if st == nil {
		if len(t.stages) >= maxRunStages {
			return
		}
		st = &stageTree{items: map[int]*itemNode{}}
		t.stages[ev.Stage] = st
	}
	itemOf := func() *itemNode {
		it, ok := st.items[ev.Index]
		if !ok {
			if !t.room(st) {
				return nil
			}
			it = &itemNode{RunNode: &report.RunNode{Kind: report.NodeItem, Stage: ev.Stage, Index: ev.Index},
				title: fmt.Sprintf("[%d/%d] %s", ev.Index, ev.Count, ev.Item), start: ev.Time}
			st.items[ev.Index] = it
			st.nodes = append(st.nodes, it.RunNode)
		}
		return it
	}
	var leaf *report.RunNode
	switch ev.Kind {
	case report.EventItemStart:
		if it := itemOf(); it != nil {
			it.start = ev.Time
		}
		return
	case report.EventItemEnd:
		if it := itemOf(); it != nil {
			it.end = ev.Time
			if strings.Contains(ev.Message, "kept from") {
				it.title += "  (kept from an interrupted run)"
			}
		}
		return
	case report.EventModel:
		m := ev.Model
		if m == nil {
			return
		}
		leaf = &report.RunNode{Kind: report.NodeModel, Stage: ev.Stage, Index: ev.Index, Call: m.Call, PromptTokens: m.PromptTokens, OutputTokens: m.OutputTokens,
			Duration: m.Duration, Error: m.Err,
			Text: fmt.Sprintf("model %s  %s  %s", m.Model, human.InOut(m.PromptTokens, m.OutputTokens), human.Duration(m.Duration))}
		if m.Purpose == PurposeAgent {
			// No model of icm's was called: an agent handed the outputs
			// in from the context it was given.
			leaf.Text = fmt.Sprintf("model %s  handed in over MCP from a context of %s", m.Model, human.Estimate(m.PromptEstimate))
			st.agent = m.Model
		}
		if m.ReuseBasis != "" && m.Err == "" {
			leaf.Text += "  prefill: " + human.Prefill(m.PromptTokens, m.Reused, m.ReuseMeasured) + " in " + human.Duration(m.PromptEval)
		}
		if m.DoneReason != "" && m.DoneReason != "stop" {
			leaf.Text += "  (" + m.DoneReason + ")"
		}
		if m.Err != "" {
			leaf.Text += "  error: " + clipLine(m.Err)
		}
		if ev.Count > 0 {
			if it := itemOf(); it != nil {
				it.PromptTokens = satAdd(it.PromptTokens, m.PromptTokens)
				it.OutputTokens = satAdd(it.OutputTokens, m.OutputTokens)
			}
		}
	case report.EventTool:
		tc := ev.Tool
		if tc == nil {
			return
		}
		leaf = &report.RunNode{Kind: report.NodeTool, Stage: ev.Stage, Index: ev.Index, Call: tc.Call, Size: tc.ResultSize, Duration: tc.Duration,
			Text: fmt.Sprintf("tool %s  %s  %s", tc.Name, human.Size(int64(tc.ResultSize)), human.Duration(tc.Duration))}
		if len(tc.Args) > 0 {
			_ = json.Unmarshal(tc.Args, &leaf.Args)
		}
		if tc.IsError {
			leaf.Error = tc.Err
			leaf.Text += "  error: " + clipLine(tc.Err)
		}
	case report.EventVerify:
		leaf = &report.RunNode{Kind: report.NodeVerify, Stage: ev.Stage, Text: ev.Message}
		for _, v := range ev.Verify {
			if !v.OK {
				leaf.Error = v.Check + " failed"
				break
			}
		}
		if _, _, first := state.RubricCount(ev.Rubric); first != "" && leaf.Error == "" {
			leaf.Error = "rubric: " + first
		}
	default:
		return
	}
	if ev.Count > 0 {
		it := itemOf()
		if it == nil || !t.room(st) {
			return
		}
		it.Children = append(it.Children, leaf)
		return
	}
	if t.room(st) {
		st.nodes = append(st.nodes, leaf)
	}
}

// finish writes each item's line, once its start and end are known, and
// puts a stage's items in item order: items run in parallel, so their
// first events come in the order they started or finished.
func (t *runTree) finish() {
	for _, st := range t.stages {
		for _, n := range st.items {
			took := "unfinished"
			if !n.end.IsZero() {
				n.Duration = n.end.Sub(n.start)
				took = human.Duration(n.Duration)
			}
			n.Text = fmt.Sprintf("%s  %s  %s", n.title, took, human.InOut(n.PromptTokens, n.OutputTokens))
		}
		sort.SliceStable(st.nodes, func(i, j int) bool {
			a, b := st.nodes[i], st.nodes[j]
			if a.Kind == report.NodeItem && b.Kind == report.NodeItem {
				return a.Index < b.Index
			}
			return a.Kind == report.NodeItem && b.Kind != report.NodeItem
		})
	}
}

// clipLine is the first line of s, cut to fit a tree row.
func clipLine(s string) string {
	line := firstLine(strings.TrimSpace(s))
	if r := []rune(line); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return line
}
