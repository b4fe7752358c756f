package contract

import (
	"testing"
)

// TestModelSettingsAreBounded: a contract's ## Model takes the same
// bounds as config.toml's [model]: NaN is no temperature, and a window or
// an answer room past what any model has is an error at its value.
// Failed before: temperature: nan, num_ctx: 9000000000000000000 and
// max_output: 9000000000000000000 were taken as they were.
func TestModelSettingsAreBounded(t *testing.T) {
	for _, line := range []string{"temperature: nan", "temperature: NaN", "num_ctx: 9000000000000000000", "max_output: 9000000000000000000", "max_output: 99999999"} {
		src := "# Stage: a\n\n## Model\n" + line + "\n\n## Process\nGo.\n\n## Outputs\n- out.md -> output/\n"
		c := Parse("CONTEXT.md", []byte(src))
		found := false
		for _, f := range c.Findings {
			found = found || (f.Code == CodeBadModel && f.Severity == Error)
		}
		if !found {
			t.Errorf("%q: no error; findings %v, model %+v", line, c.Findings, c.Model)
		}
		if m := c.Model; m != nil && (m.Temperature != nil || m.NumCtx != 0 || m.MaxOutput != 0) {
			t.Errorf("%q: the value was kept: %+v", line, m)
		}
	}
	c := Parse("CONTEXT.md", []byte("# Stage: a\n\n## Model\nnum_ctx: 16777216\nmax_output: 16777216\ntemperature: 2\n\n## Process\nGo.\n"))
	if m := c.Model; m == nil || m.NumCtx != 1<<24 || m.MaxOutput != 1<<24 || m.Temperature == nil {
		t.Errorf("settings at their bounds: %+v %v", c.Model, c.Findings)
	}
}
