package workflow

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// RunSummary is one run as its trace tells it.
type RunSummary struct {
	ID       string        `json:"id"`
	Start    time.Time     `json:"start"`
	End      time.Time     `json:"end"`
	Duration time.Duration `json:"duration"`
	Stages   []*StageTrace `json:"stages"`
	Prompt   int           `json:"prompt_tokens"`
	Output   int           `json:"output_tokens"`
	// Finished is false when the trace has no run-end (the run was killed).
	Finished bool `json:"finished"`
	// Events are every event of the trace, in order.
	Events []Event `json:"-"`
}

// StageTrace is one stage of a run.
type StageTrace struct {
	Stage      string        `json:"stage"`
	Status     string        `json:"status"`
	Error      string        `json:"error,omitempty"`
	Duration   time.Duration `json:"duration"`
	Prompt     int           `json:"prompt_tokens"`
	Output     int           `json:"output_tokens"`
	ModelCalls int           `json:"model_calls"`
	ToolCalls  int           `json:"tool_calls"`
	ToolErrors int           `json:"tool_errors,omitempty"`
	Items      int           `json:"items,omitempty"`
}

// History reads every run trace of a workspace, oldest first. A trace cut
// by a killed run is read up to its last whole line.
func History(ws *workspace.Workspace) ([]*RunSummary, error) {
	paths, err := traces(ws, "")
	if err != nil {
		return nil, err
	}
	var out []*RunSummary
	for _, p := range paths {
		r, err := readTrace(ws, p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	// Ids sort by the second a run started; within one second their
	// random tails say nothing, the traces' own times do.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, nil
}

// LatestRun names the newest run wherever a run id is asked for.
const LatestRun = "latest"

// Run reads one run's trace by id (a unique prefix is enough, and
// LatestRun is the newest).
func Run(ws *workspace.Workspace, id string) (*RunSummary, error) {
	latest := id == LatestRun
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
			return nil, fmt.Errorf("no run yet in %s", filepath.Join(ws.Root, workspace.HistoryDir))
		}
		return nil, fmt.Errorf("no run %q in %s; `icm history` lists the runs", id, filepath.Join(ws.Root, workspace.HistoryDir))
	case 1:
		return readTrace(ws, paths[0])
	default:
		return nil, fmt.Errorf("run id %q matches %d runs; give more of it", id, len(paths))
	}
}

// newest reads the run that started last among paths (sorted by id, so
// by the second each run started): the last one, or of several that
// started in the same second the one whose trace starts latest.
func newest(ws *workspace.Workspace, paths []string) (*RunSummary, error) {
	second := func(p string) string {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		if i := strings.LastIndexByte(id, '-'); i > 0 {
			return id[:i]
		}
		return id
	}
	last := second(paths[len(paths)-1])
	var best *RunSummary
	for i := len(paths) - 1; i >= 0 && second(paths[i]) == last; i-- {
		r, err := readTrace(ws, paths[i])
		if err != nil {
			return nil, err
		}
		if best == nil || r.Start.After(best.Start) {
			best = r
		}
	}
	return best, nil
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

func readTrace(ws *workspace.Workspace, path string) (*RunSummary, error) {
	f, _, err := ws.Disk.Open(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read trace %s: %w", path, err)
	}
	defer f.Close()
	r := &RunSummary{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	stages := map[string]*StageTrace{}
	stage := func(name string) *StageTrace {
		s, ok := stages[name]
		if !ok {
			s = &StageTrace{Stage: name, Status: "running"}
			stages[name] = s
			r.Stages = append(r.Stages, s)
		}
		return s
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			continue // a line cut by a kill
		}
		r.Events = append(r.Events, ev)
		if r.Start.IsZero() {
			r.Start = ev.Time
		}
		r.End = ev.Time
		switch ev.Kind {
		case EventModel:
			s := stage(ev.Stage)
			s.ModelCalls++
			s.Prompt += ev.Model.PromptTokens
			s.Output += ev.Model.OutputTokens
			r.Prompt += ev.Model.PromptTokens
			r.Output += ev.Model.OutputTokens
		case EventTool:
			s := stage(ev.Stage)
			s.ToolCalls++
			if ev.Tool != nil && ev.Tool.IsError {
				s.ToolErrors++
			}
		case EventItemEnd:
			stage(ev.Stage).Items = max(stage(ev.Stage).Items, ev.Count)
		case EventStageStart:
			stage(ev.Stage)
		case EventStageEnd:
			s := stage(ev.Stage)
			s.Status, s.Error, s.Duration = ev.Status, ev.Err, ev.Duration
		case EventRunEnd:
			r.Finished = true
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, fs.ErrClosed) {
		return nil, fmt.Errorf("unable to read trace %s: %w", path, err)
	}
	r.Duration = r.End.Sub(r.Start)
	return r, nil
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
	// Kind is "run", "edited" or "incomplete".
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
			case "edited", "incomplete":
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
