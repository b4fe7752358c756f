package session

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// Brief is what an agent running a stage in icm's place needs besides
// the context: the files it hands in and what the person checks at the
// gate.
type Brief struct {
	// Outputs describe the declared outputs as the write tool names
	// them ("output/objectives.md", "output/[slug]-brief.md (fill in
	// [slug])", "any file in output/site/").
	Outputs []string
	// ReviewGate is the contract's Review Gate text ("" when it has none).
	ReviewGate string
	// Script is set when the stage runs a command: nothing is handed in.
	Script bool
	// ForEach is set when the stage runs once per item of a file: the
	// agent hands in the one joined output.
	ForEach bool
}

// BriefOf is the brief of a probed stage.
func BriefOf(p *Probe) Brief {
	c := p.Contract
	b := Brief{ReviewGate: c.ReviewGate(), Script: c.Script != nil, ForEach: c.ForEach != nil}
	for _, t := range writeout.Targets(c) {
		b.Outputs = append(b.Outputs, t.Describe())
	}
	return b
}

// NoteReview keeps a person's answer to an agent's request to review a
// stage, against the stage's last run. It is a note for the record and
// never an approval; an untrusted workspace, read-only, keeps none.
func (s *Session) NoteReview(n *state.ReviewNote) error {
	if err := s.Require("keep a review note"); err != nil {
		return err
	}
	st, err := s.ws.Stage(n.Stage)
	if err != nil {
		return fault.From(err)
	}
	n.Stage = st.Name
	if rec, err := state.ReadRecord(s.ws.Disk, st.Dir); err == nil && rec != nil {
		n.RunID = rec.RunID
	}
	if err := state.WriteReviewNote(s.ws.Disk, st.Dir, n); err != nil {
		return fault.From(fmt.Errorf("unable to keep the review note of %s: %w", st.Name, err))
	}
	return nil
}

// ReviewNote is a stage's last review note; nil when there is none.
func (s *Session) ReviewNote(stage string) (*state.ReviewNote, error) {
	st, err := s.ws.Stage(stage)
	if err != nil {
		return nil, fault.From(err)
	}
	n, err := state.ReadReviewNote(s.ws.Disk, st.Dir)
	if err != nil {
		return nil, fault.From(err)
	}
	return n, nil
}
