package session

import (
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// Runs lists the workspace's runs, oldest first, as their traces tell
// them.
//
// A run without its end is running when a run holds the workspace now
// (the newest such run that started after the holder did), and stopped
// otherwise: its process was killed.
func (h History) Runs() ([]*report.RunSummary, error) {
	s := h.s
	runs, err := workflow.History(s.ws)
	if err != nil {
		return nil, fault.From(err)
	}
	since, going := state.RunGoing(s.ws.Disk)
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if r.Status != report.RunUnfinished {
			continue
		}
		if going && !r.Start.Before(since.Add(-time.Second)) {
			r.Status, going = report.RunRunning, false
			continue
		}
		r.Status = report.RunStopped
	}
	h.approvals(runs...)
	return runs, nil
}

// approvals sets on each run's stages the approval of what that run
// wrote, where the stage's approval names the run.
func (h History) approvals(runs ...*report.RunSummary) {
	s := h.s
	type at struct{ stage, run string }
	found := map[at]*report.Approval{}
	for _, st := range s.ws.Stages {
		a, err := state.ReadApproval(s.ws.Disk, st.Dir)
		if err != nil || a == nil || a.RunID == "" {
			continue
		}
		found[at{st.Name, a.RunID}] = &report.Approval{By: a.By, Reviewer: a.Reviewer, Note: a.Note, Forced: a.Forced, At: a.ApprovedAt}
	}
	for _, r := range runs {
		for _, st := range r.Stages {
			st.Approval = found[at{st.Stage, r.ID}]
		}
	}
}

// Run reads one run by id (a unique prefix of it, or
// report.LatestRun): its summary, its events and its tree. An id that
// names no run is a not-found fault; one that names several, an invalid
// request.
func (h History) Run(id string) (*report.RunSummary, error) {
	s := h.s
	r, err := workflow.Run(s.ws, id)
	if err != nil {
		return nil, fault.From(err)
	}
	h.approvals(r)
	return r, nil
}

// Exchange rebuilds model call call (1-based) of a stage in a run, of its
// For each item item (0 for a stage without items): every message the call
// sent and the reply. A For each stage's calls are numbered per item, so
// asking for one without the item is an invalid-request fault that says
// how many items there are.
func (h History) Exchange(runID, stage string, item, call int) (*report.Exchange, error) {
	r, err := h.Run(runID)
	if err != nil {
		return nil, err
	}
	if item == 0 {
		if n := itemsOf(r, stage); n > 0 {
			// A For each stage's calls are numbered per item: "call 2"
			// names none until the item is named.
			return nil, fault.InvalidRequest(fmt.Sprintf("%s ran one model loop per For each item (1 to %d), each with its own calls: name the item whose call %d you mean", stage, n, call),
				fmt.Sprintf("name the item (1 to %d) as well as the call", n)).In(stage)
		}
	}
	ex, err := workflow.FindExchange(r, stage, item, call)
	if err != nil {
		return nil, fault.From(err)
	}
	return ex, nil
}

// ToolCall rebuilds tool call call (1-based) of a stage in a run, of its
// For each item item (0 for a stage without items): the arguments, the
// result the model was given and the error.
func (h History) ToolCall(runID, stage string, item, call int) (*report.ToolExchange, error) {
	r, err := h.Run(runID)
	if err != nil {
		return nil, err
	}
	ex, err := workflow.FindToolCall(r, stage, item, call)
	if err != nil {
		return nil, fault.From(err)
	}
	return ex, nil
}

// itemsOf is how many For each items a stage ran with model calls in a
// run, 0 for a stage without items.
func itemsOf(r *report.RunSummary, stage string) int {
	n := 0
	for _, ev := range r.Events {
		if ev.Kind == report.EventModel && ev.Stage == stage && ev.Index > n {
			n = ev.Index
		}
	}
	return n
}
