package lsp

import (
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// finishedReview fills a runFinished's review facts from the stage-end
// event: the rubric's line and the checklist the person reviews against.
func finishedReview(f *runFinished, ev session.Event) {
	f.Rubric = state.RubricLine(ev.Rubric)
	pass, of, _ := state.RubricCount(ev.Rubric)
	f.RubricFailed = pass < of
	f.ReviewGate = session.ReviewItems(ev.ReviewGate)
}
