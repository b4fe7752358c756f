package check

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// thresholds checks a critic stage's Thresholds section with the parser
// the critic itself reads it with, so a typo shows in the editor, not
// mid-run.
func (c *checker) thresholds(st *workspace.Stage, k *contract.Contract) {
	for _, s := range k.Sections {
		if s.Kind != contract.KindThresholds {
			continue
		}
		if _, err := contract.ParseThresholds(s.Text); err != nil {
			c.add(contract.Finding{File: st.Contract, Range: s.Heading, Severity: contract.Error, Code: contract.CodeBadThresholds,
				Message: "Thresholds: " + err.Error()})
		}
	}
}
