package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// ModelCall is one model call of a past run, as its trace keeps it: the
// server's prompt count beside icm's pre-call estimate of it.
type ModelCall struct {
	Run, Stage string
	// Item is the For each item's title and Index its place (from 1).
	Item  string
	Index int
	// Call numbers the calls of one agent loop (a stage's, or a For each
	// item's) from 1; Purpose is the agent's (loop, synthesize, format).
	Call    int
	Purpose string
	Model   string
	// Server is the server's count (prompt_eval_count, prompt_tokens);
	// Guess is icm's heuristic estimate, made before the call; Method is
	// how the count the window check used was made.
	Server, Guess int
	Method        string
}

// maxTracesScanned bounds how many trace files ModelCalls opens looking
// for runs with model calls (a run that only approved, or found nothing
// to do, has none).
const maxTracesScanned = 200

// ModelCalls reads the model calls of the workspace's newest runs that
// made any with both counts, at most maxRuns of them (newest first, by
// when their traces were last written; a run's calls in order). Traces from before icm kept the estimate beside
// the server's count have none. A trace cut by a killed run is read up to
// its last whole line; one that cannot be read is skipped.
func ModelCalls(ws *workspace.Workspace, maxRuns int) ([]ModelCall, error) {
	// The traces are listed and read through the workspace's Root, like
	// every file of the workspace: a history/ linked out of it, or a trace
	// that is not a regular file, is skipped, never followed.
	paths, err := traces(ws, "")
	if workspace.Refused(err) {
		return nil, nil // icm check says why
	}
	if err != nil {
		return nil, err
	}
	newestFirst(ws, paths)
	var out []ModelCall
	runs := 0
	for i, p := range paths {
		if runs >= maxRuns || i >= maxTracesScanned {
			break
		}
		calls := traceCalls(ws, p)
		if len(calls) > 0 {
			out = append(out, calls...)
			runs++
		}
	}
	return out, nil
}

// modelLine is the part of a trace line ModelCalls reads.
type modelLine struct {
	Kind  string      `json:"kind"`
	Stage string      `json:"stage"`
	Item  string      `json:"item"`
	Index int         `json:"index"`
	Model *traceModel `json:"model"`
}

// traceModel is the part of a model event ModelCalls reads.
type traceModel struct {
	Call         int    `json:"call"`
	Purpose      string `json:"purpose"`
	Model        string `json:"model"`
	PromptTokens int    `json:"prompt_tokens"`
	PromptGuess  int    `json:"prompt_guess"`
	PromptMethod string `json:"prompt_method"`
}

// UnmarshalJSON reads a model event in either key style (report.SnakeKeys).
func (m *traceModel) UnmarshalJSON(data []byte) error {
	type plain traceModel
	return unmarshalEither(data, (*plain)(m))
}

// traceCalls reads one trace's model calls that have both counts.
func traceCalls(ws *workspace.Workspace, path string) []ModelCall {
	f, _, err := ws.Disk.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	run := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	var out []ModelCall
	lines := newLineReader(f, maxTraceLine, maxTraceBytes)
	kind := []byte(`"kind":"` + report.EventModel + `"`)
	for len(out) < maxRunEvents {
		line, err := lines.next()
		var long *errLongLine
		if errors.As(err, &long) {
			continue // a line over the cap: the calls after it still count
		}
		if err != nil {
			break
		}
		if !bytes.Contains(line, kind) {
			continue // only model events are decoded
		}
		var ev modelLine
		if json.Unmarshal(line, &ev) != nil || ev.Kind != report.EventModel || ev.Model == nil {
			continue
		}
		m := ev.Model
		if m.PromptTokens <= 0 || m.PromptGuess <= 0 {
			continue
		}
		out = append(out, ModelCall{Run: run, Stage: ev.Stage, Item: ev.Item, Index: ev.Index, Call: m.Call, Purpose: m.Purpose, Model: m.Model,
			Server: m.PromptTokens, Guess: m.PromptGuess, Method: m.PromptMethod})
	}
	return out
}

// newestFirst orders traces by when they were last written, newest
// first: run ids sort by the second a run started, and two runs can
// start in one second.
func newestFirst(ws *workspace.Workspace, paths []string) {
	when := make(map[string]int64, len(paths))
	for _, p := range paths {
		if info, err := ws.Disk.Lstat(p); err == nil {
			when[p] = info.ModTime().UnixNano()
		}
	}
	sort.SliceStable(paths, func(i, j int) bool {
		if when[paths[i]] != when[paths[j]] {
			return when[paths[i]] > when[paths[j]]
		}
		return paths[i] > paths[j]
	})
}
