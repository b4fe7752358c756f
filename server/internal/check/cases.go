package check

import (
	"github.com/icm-tool/icm/server/internal/testcase"
)

// cases reads each stage's test cases and reports what is wrong with
// them, so `icm check` and the editor's diagnostics cover cases too.
func (c *checker) cases() {
	for _, sr := range c.r.Stages {
		sr.Cases = testcase.Load(c.ws, sr.Stage)
		for _, tc := range sr.Cases {
			for _, f := range tc.Findings {
				c.add(f)
			}
			for _, f := range testcase.Check(c.ws, sr.Stage, sr.Contract, tc) {
				c.add(f)
			}
		}
	}
}
