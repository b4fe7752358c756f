package session

import (
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
)

// GateAt is the gate summary of a stage awaiting review, as `icm status`
// and the editor show it: the one its run made (report.GateOf, from its
// record), with the headings later stages read that its outputs lack as
// the workspace reads now (rep, the check the status was derived with).
// It is nil for a stage not at its gate, or with nothing to say.
func GateAt(rep *check.Report, ss *state.StageState) *report.Gate {
	if ss == nil || ss.Status != state.Awaiting || ss.Record == nil {
		return nil
	}
	var lacked []state.LackedHeading
	if rep != nil {
		lacked = rep.HeadingsLacked(ss.Stage)
	}
	return report.GateOf(ss.Stage, ss.Record, lacked)
}
