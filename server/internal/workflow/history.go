package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Bounds on what reading a run keeps (see also tracelines.go).
const (
	// maxRunStages bounds the stages of one run's summary; the calls of
	// stages past it count in the run's totals only.
	maxRunStages = 1000
	// maxRunEvents and maxRunEventBytes bound the events Run keeps
	// decoded (for a call's request and reply, --json): a run's own are
	// a few hundred.
	maxRunEvents     = 20000
	maxRunEventBytes = 64 << 20
	// maxTreeNodes bounds one run's tree; maxHistoryTreeNodes the trees
	// History keeps over all runs (newest runs first).
	maxTreeNodes        = 1000
	maxHistoryTreeNodes = 50 * maxTreeNodes
	// maxNameBytes and maxErrorBytes bound the names and errors kept
	// from a trace.
	maxNameBytes  = 256
	maxErrorBytes = 4 << 10
)

// History reads every run trace of a workspace, oldest first, each as its
// summary: its stages, totals and tree of calls (RunSummary.Tree), never
// its events. A trace cut by a killed run is read up to its last whole line;
// a line over the cap, or a trace that cannot be read, is a note of its
// run, and every other run is listed.
func History(ws *workspace.Workspace) ([]*report.RunSummary, error) {
	paths, err := traces(ws, "")
	if err != nil {
		return nil, err
	}
	out := make([]*report.RunSummary, len(paths))
	budget := maxHistoryTreeNodes
	// Newest first, so that the trees kept are the newest runs'.
	for i := len(paths) - 1; i >= 0; i-- {
		r := readTrace(ws, paths[i], min(maxTreeNodes, budget), false)
		budget -= r.tree.nodes
		out[i] = r.RunSummary
	}
	// Ids sort by the second a run started; within one second their
	// random tails say nothing, the traces' own times do.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, nil
}

// Run reads one run's trace by id (a unique prefix is enough, and
// LatestRun is the newest).
func Run(ws *workspace.Workspace, id string) (*report.RunSummary, error) {
	latest := id == report.LatestRun
	if latest {
		id = ""
	}
	paths, err := traces(ws, id)
	if err != nil {
		return nil, err
	}
	if latest && len(paths) > 0 {
		return newest(ws, paths)
	}
	switch len(paths) {
	case 0:
		if latest {
			return nil, fault.NotFound(fmt.Sprintf("no run yet in %s", filepath.Join(ws.Root, workspace.HistoryDir)), "run a stage first; the run history lists the runs by id")
		}
		return nil, fault.NotFound(fmt.Sprintf("no run %q in %s; `icm history` lists the runs", id, filepath.Join(ws.Root, workspace.HistoryDir)),
			"the run history lists the runs by id")
	case 1:
		return readTrace(ws, paths[0], maxTreeNodes, true).RunSummary, nil
	default:
		return nil, fault.InvalidRequest(fmt.Sprintf("run id %q matches %d runs; give more of it", id, len(paths)), "give more of the run's id")
	}
}

// newest reads the run that started last among paths (sorted by id, so
// by the second each run started): the last one, or of several that
// started in the same second the one whose trace starts latest.
func newest(ws *workspace.Workspace, paths []string) (*report.RunSummary, error) {
	second := func(p string) string {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		if i := strings.LastIndexByte(id, '-'); i > 0 {
			return id[:i]
		}
		return id
	}
	last := second(paths[len(paths)-1])
	var best *runReader
	bestPath := ""
	for i := len(paths) - 1; i >= 0 && second(paths[i]) == last; i-- {
		// Each candidate's summary only: the one chosen is read again
		// with its events.
		r := readTrace(ws, paths[i], 0, false)
		if best == nil || r.Start.After(best.Start) {
			best, bestPath = r, paths[i]
		}
	}
	return readTrace(ws, bestPath, maxTreeNodes, true).RunSummary, nil
}

// traces lists the trace files of history/ whose run id starts with
// prefix, oldest first, as paths below the workspace.
func traces(ws *workspace.Workspace, prefix string) ([]string, error) {
	entries, err := ws.Disk.ReadDir(workspace.HistoryDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("unable to list the runs: %w", err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".jsonl") && strings.HasPrefix(n, prefix) {
			out = append(out, workspace.HistoryDir+"/"+n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// runReader reads one trace into its summary, keeping what reading needs
// besides: the tree as it grows, the stages by name and which of them
// did work.
type runReader struct {
	*report.RunSummary
	// tree is the run's calls, built as the trace is read.
	tree *runTree
	// stageOf finds a stage's trace by name.
	stageOf map[string]*report.StageTrace
	// worked holds the stages that did something: a model call answered,
	// a tool or its script ran.
	worked map[string]bool
	// moreStages counts stages past maxRunStages, in the totals only.
	moreStages int
}

// readTrace reads one trace as a stream: its summary and its tree (of at
// most treeNodes nodes), and with events its events (within
// maxRunEvents and maxRunEventBytes).
func readTrace(ws *workspace.Workspace, path string, treeNodes int, events bool) *runReader {
	r := newReader(strings.TrimSuffix(filepath.Base(path), ".jsonl"), treeNodes)
	defer r.finish()
	f, _, err := ws.Disk.Open(path)
	if err != nil {
		r.note(fmt.Sprintf("unable to read the trace %s: %v", path, err))
		return r
	}
	defer f.Close()
	r.read(f, maxTraceLine, events)
	return r
}

// read reads a trace's lines from f (each up to maxLine bytes) into the
// summary.
func (r *runReader) read(f io.Reader, maxLine int, events bool) {
	lines := newLineReader(f, maxLine, maxTraceBytes)
	keptBytes, notKept := 0, 0
	for {
		line, err := lines.next()
		var long *errLongLine
		if errors.As(err, &long) {
			r.note(long.Error())
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			r.note(fmt.Sprintf("unable to read the trace past line %d: %v", lines.line, err))
			break
		}
		var tl traceLine
		if json.Unmarshal(line, &tl) != nil {
			continue // a line cut by a kill
		}
		tl.clip()
		r.add(&tl)
		r.tree.add(&tl)
		if !events {
			continue
		}
		if len(r.Events) >= maxRunEvents || keptBytes+len(line) > maxRunEventBytes {
			notKept++
			continue
		}
		var ev report.Event
		if json.Unmarshal(line, &ev) == nil {
			r.Events = append(r.Events, ev)
			keptBytes += len(line)
		}
	}
	if lines.stopped {
		r.note(fmt.Sprintf("only the first %s of the trace were read", sizeText(maxTraceBytes)))
	}
	if notKept > 0 {
		r.note(fmt.Sprintf("%d events past the first %d (or %s) are counted but not kept: calls among them cannot be opened", notKept, len(r.Events), sizeText(maxRunEventBytes)))
	}
}

func newReader(id string, treeNodes int) *runReader {
	return &runReader{RunSummary: &report.RunSummary{ID: id}, tree: newRunTree(treeNodes),
		stageOf: map[string]*report.StageTrace{}, worked: map[string]bool{}}
}

// note adds a note, up to maxNotes of them.
func (r *runReader) note(msg string) {
	switch {
	case len(r.Notes) < maxNotes:
		r.Notes = append(r.Notes, msg)
	case len(r.Notes) == maxNotes:
		r.Notes = append(r.Notes, "more notes left out")
	}
}

// stage returns the named stage's trace, added on first sight; nil past
// maxRunStages.
func (r *runReader) stage(name string) *report.StageTrace {
	if s, ok := r.stageOf[name]; ok {
		return s
	}
	if len(r.Stages) >= maxRunStages {
		r.moreStages++
		return nil
	}
	s := &report.StageTrace{Stage: name, Status: "running"}
	r.stageOf[name] = s
	r.Stages = append(r.Stages, s)
	return s
}

// work marks the named stage as having done something.
func (r *runReader) work(name string) {
	if r.stage(name) != nil {
		r.worked[name] = true
	}
}

// add counts one line of the trace into the summary.
func (r *runReader) add(ev *traceLine) {
	if r.Start.IsZero() {
		r.Start = ev.Time
	}
	r.End = ev.Time
	switch ev.Kind {
	case report.EventRunStart:
		if ev.Index > 0 {
			r.ItemStage, r.Item, r.Note = ev.Stage, ev.Index, ev.Note
		}
	case report.EventScript:
		r.work(ev.Stage)
	case report.EventModel:
		if ev.Model == nil {
			return
		}
		if ev.Model.Err == "" {
			r.work(ev.Stage)
		}
		r.Prompt = satAdd(r.Prompt, ev.Model.PromptTokens)
		r.Output = satAdd(r.Output, ev.Model.OutputTokens)
		if s := r.stage(ev.Stage); s != nil {
			s.ModelCalls++
			s.Prompt = satAdd(s.Prompt, ev.Model.PromptTokens)
			s.Output = satAdd(s.Output, ev.Model.OutputTokens)
			addPrefill(s, ev)
		}
	case report.EventTool:
		r.work(ev.Stage)
		if s := r.stage(ev.Stage); s != nil {
			s.ToolCalls++
			if ev.Tool != nil && ev.Tool.IsError {
				s.ToolErrors++
			}
		}
	case report.EventItemEnd:
		r.work(ev.Stage)
		if s := r.stage(ev.Stage); s != nil {
			s.Items = max(s.Items, ev.Count)
			s.Done++
		}
	case report.EventStageStart:
		r.stage(ev.Stage)
	case report.EventStageEnd:
		if s := r.stage(ev.Stage); s != nil {
			s.Status, s.Error, s.Duration = ev.Status, ev.Err, ev.Duration
		}
	case report.EventRunEnd:
		r.Finished = true
	}
}

// finish completes a summary read from its trace, its tree included.
func (r *runReader) finish() {
	r.Duration = r.End.Sub(r.Start)
	r.Status = r.status()
	r.tree.finish()
	r.Tree = r.tree.of(r.RunSummary)
	if r.moreStages > 0 {
		r.note(fmt.Sprintf("the run has more than %d stages: the calls of the rest count in its totals only", maxRunStages))
	}
}

// Version is an output version kept in history.
type Version struct {
	// Label is the folder name: time, then the run that wrote it (or
	// "edited", or "incomplete").
	Label string    `json:"label"`
	Time  time.Time `json:"time"`
	// RunID is the run that wrote the version ("" when a person edited it
	// or the answer was cut off: see Kind).
	RunID string `json:"run_id,omitempty"`
	// Kind is "run", "edited", "incomplete" or "committed" (there before
	// any run of icm, committed with the workspace).
	Kind string `json:"kind"`
	// Files maps output file names to their kept copies.
	Files map[string]string `json:"files"`
}

// Names lists the version's output file names, sorted.
func (v Version) Names() []string {
	names := make([]string, 0, len(v.Files))
	for n := range v.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Versions lists the kept versions of a stage's outputs, newest first.
func Versions(ws *workspace.Workspace, stage string) ([]Version, error) {
	dir := VersionsDir(ws, stage)
	entries, err := ws.Disk.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Version
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.IsDir() {
			continue
		}
		v := Version{Label: e.Name(), Files: map[string]string{}, Kind: "run"}
		const stamp = len(versionTime)
		if len(e.Name()) >= stamp {
			v.Time, _ = time.Parse(versionTime, e.Name()[:stamp])
		}
		if len(e.Name()) > stamp+1 {
			switch rest := e.Name()[stamp+1:]; rest {
			case "edited", "incomplete", committedLabel:
				v.Kind = rest
			default:
				v.RunID = rest
			}
		}
		// Files a stage wrote into folders of output/ are kept below
		// the version's folder, named by their path inside output/.
		top := filepath.Join(dir, e.Name())
		_ = ws.Disk.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			abs := ws.Abs(p)
			if rel, rerr := filepath.Rel(top, abs); rerr == nil {
				v.Files[filepath.ToSlash(rel)] = abs
			}
			return nil
		})
		out = append(out, v)
	}
	return out, nil
}

// status says how the run ended: cancelled when a stage was, failed when
// a stage failed after doing work, refused when every failure came
// before any work (the model server refused the model, say), done
// otherwise; unfinished without a run-end.
func (r *runReader) status() string {
	if !r.Finished {
		return report.RunUnfinished
	}
	failed, worked := false, false
	for _, s := range r.Stages {
		switch s.Status {
		case "cancelled":
			return report.RunCancelled
		case "failed", "incomplete":
			failed = true
		}
		worked = worked || r.worked[s.Stage]
	}
	switch {
	case failed && !worked:
		return report.RunRefused
	case failed:
		return report.RunFailed
	}
	return report.RunDone
}

// addPrefill counts a model call whose reused tokens are known into its
// stage's prefill: what it computed, and the least it could have (known
// only while every call's own tokens are).
func addPrefill(s *report.StageTrace, ev *traceLine) {
	m := ev.Model
	if m.ReuseBasis == "" || m.Err != "" {
		return
	}
	p := s.Prefill
	if p == nil {
		p = &report.PrefillSum{}
		s.Prefill = p
	}
	switch {
	case m.Own <= 0:
		p.Least = 0
	case p.Calls == 0:
		p.Least = m.Own
	case p.Least > 0:
		p.Least = satAdd(p.Least, m.Own)
	}
	p.Calls++
	p.Prompt = satAdd(p.Prompt, m.PromptTokens)
	p.Reused = satAdd(p.Reused, min(max(m.Reused, 0), max(m.PromptTokens, 0)))
	if m.ReuseMeasured {
		p.Measured++
	}
	p.PromptEval = time.Duration(satAdd(int(p.PromptEval), int(m.PromptEval)))
}
