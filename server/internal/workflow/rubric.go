package workflow

import (
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/rubric"
	"github.com/icm-tool/icm/server/internal/state"
)

// rubric runs the stage's review rubrics on the outputs just written
// (beside Verify) and says how they came out; the results go in the
// record with the Verify results.
func (r *run) rubric(outputs []string) {
	r.res.Rubric = rubric.Run(r.e.ws, r.st, r.c, outputs)
	r.res.ReviewGate = r.c.ReviewGate()
	if line := state.RubricLine(r.res.Rubric); line != "" {
		r.e.emit(report.Event{Kind: report.EventVerify, Stage: r.st.Name, Rubric: r.res.Rubric, Message: line})
	}
}
