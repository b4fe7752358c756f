package session

import (
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
