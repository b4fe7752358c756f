package workflow

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
)

// manual runs a stage that is the person's step, not a model's: no model
// is called and nothing is written but the record, which says the stage
// waits for them; the result carries what they are to do. A person's
// approval then stands for the step done.
func (r *run) manual(m *contract.Manual) (*report.StageResult, error) {
	e, st := r.e, r.st
	if err := e.begin(); err != nil {
		return nil, err
	}
	start := e.opts.Now()
	e.emit(report.Event{Kind: report.EventStageStart, Stage: st.Name, Message: "manual step: " + m.Why})
	outs, err := state.OutputHashes(e.ws, st, r.c)
	if err != nil {
		r.fail(err)
		return r.res, err
	}
	var before map[string]string
	if r.cur != nil {
		before = r.cur.Outputs
	}
	rec := r.record(state.RunManual, outs, before)
	if err := state.WriteRecord(e.ws.Disk, st.Dir, rec); err != nil {
		r.fail(err)
		return r.res, err
	}
	r.res.Status, r.res.Manual, r.res.ManualWhy, r.res.Outputs = state.RunManual, m.Steps, m.Why, []string{}
	r.res.Duration = e.opts.Now().Sub(start)
	e.emit(report.Event{Kind: report.EventStageEnd, Stage: st.Name, Status: state.RunManual, Outputs: r.res.Outputs,
		Duration: r.res.Duration, Message: "manual step: " + m.Why + "; do it, then approve the stage", Manual: m.Steps})
	return r.res, nil
}
