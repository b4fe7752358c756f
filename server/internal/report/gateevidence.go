package report

// GateEvidence is what a stage's outputs rest on, in the one line the
// gate shows (docs/evidence.md).
type GateEvidence struct {
	// Text is the line: "21 of 24 paragraphs supported · 1 URL never read".
	Text string `json:"text"`
	// Clean is set when every unit is supported and nothing is marked.
	Clean bool `json:"clean,omitempty"`
}

// evidenceLine is the gate's line for the evidence: it informs, so it is
// a warning at most.
func (g *Gate) evidenceLine() []GateLine {
	if g.Evidence == nil {
		return nil
	}
	status := CheckWarn
	if g.Evidence.Clean {
		status = CheckOK
	}
	return []GateLine{{Status: status, Text: "Evidence: " + g.Evidence.Text}}
}
