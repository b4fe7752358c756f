package session

import (
	"context"
	"slices"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
)

// upstream refuses a run of one named stage while an earlier stage whose
// output it reads, directly or through others, is not approved: the
// first such stage is named, to approve (or to run) first, as a run of
// the next stage would stop at its gate. A person's yes (PastGate) goes
// on, and outputs an agent hands in were made already. What the gate
// cannot judge (an unknown stage, a state that cannot be read) the run
// itself reports. The states are judged with what the model server has,
// as icm status judges them: a model name mistyped since the approvals
// makes them a config error with their approvals kept, and the run then
// reports the model, which is what blocks it, not a gate.
func (r *Run) upstream(ctx context.Context) error {
	if r.req.Stage == "" || r.req.PastGate || r.handIn {
		return nil
	}
	st, err := r.s.ws.Stage(r.req.Stage)
	if err != nil {
		return nil
	}
	p, rep, err := r.s.StatusWith(r.s.ModelServer().Facts(ctx))
	if err != nil {
		return nil
	}
	down := check.Downstream(rep)
	for _, s := range p.Stages {
		if !slices.Contains(down[s.Stage], st.Name) || s.Status == state.Approved || s.Kept == state.Approved {
			continue
		}
		return fault.Unapproved(st.Name, s.Stage, state.Label(s.Status), s.Status == state.Awaiting)
	}
	return nil
}
