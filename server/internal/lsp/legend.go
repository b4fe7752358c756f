package lsp

import (
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
)

// stateWords is one stage state in the legend the Pipeline view shows:
// its words and icon as every face has them (state.FaceOf), and what it
// means.
type stateWords struct {
	Status string `json:"status"`
	Label  string `json:"label"`
	Icon   string `json:"icon"`
	Color  string `json:"color,omitempty"`
	Means  string `json:"means"`
}

// meanings says what each stage state means, in pipeline order
// (docs/vocabulary.md has the same words).
var meanings = []struct {
	status state.Status
	means  string
}{
	{state.Pending, "not run yet"},
	{state.Running, "a run is working on it"},
	{state.Awaiting, "output written; read, edit, approve"},
	{state.Approved, "the next stage reads it"},
	{state.Stale, "something it read changed; runs again"},
	{state.Failed, "its last run failed; no good output to keep"},
	{state.Invalid, "its contract has errors; it cannot run"},
	{state.ConfigError, "a setting cannot be used; its approval is kept"},
}

// legend is every stage state, in pipeline order, in the words of every
// face: icm.status sends it, so a client needs no table of its own.
func legend() []stateWords {
	out := make([]stateWords, 0, len(meanings))
	for _, m := range meanings {
		f := state.FaceOf(&state.StageState{Status: m.status}, m.status == state.Running, "")
		out = append(out, stateWords{Status: string(f.Status), Label: f.Label, Icon: f.Icon, Color: f.Color, Means: m.means})
	}
	return out
}

// outcomeWords is one way a run can end, in the legend icm.runs sends: the
// word (a run's status) and what it means.
type outcomeWords struct {
	Status string `json:"status"`
	Means  string `json:"means"`
}

// outcomes is every way a run can end, with what each means
// (docs/vocabulary.md has the same words).
var outcomes = []outcomeWords{
	{report.RunDone, "every stage the run took on finished"},
	{report.RunFailed, "a stage failed after doing work"},
	{report.RunRefused, "it failed before doing any work (the model server turned the model away, no server answered): not a run so much as an attempt"},
	{report.RunCancelled, "a person stopped it; what finished is kept"},
	{report.RunRunning, "a run holds the workspace now"},
	{report.RunStopped, "its process ended before the run did"},
}
