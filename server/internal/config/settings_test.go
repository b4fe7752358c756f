package config

import (
	"strings"
	"testing"
)

// TestOneValidationOfSettings: each setting out of its bound is an error
// of Parse (so a run refuses the file, as check does) and of Lint, at its
// key. Failed before: max_output = 9e18 (as an integer), temperature =
// nan, context_length = -5 and the others parsed without an error, so a
// run used them (9e18 overflowed the answer cap: every answer was "cut
// off"); nan and the large numbers passed Lint too.
func TestOneValidationOfSettings(t *testing.T) {
	for _, c := range []struct{ text, key string }{
		{"[model]\nmax_output = 9000000000000000000\n", "model.max_output"},
		{"[model]\ntemperature = nan\n", "model.temperature"},
		{"[model]\ntemperature = -inf\n", "model.temperature"},
		{"[model]\ntemperature = inf\n", "model.temperature"},
		{"[model]\ncontext_length = -5\n", "model.context_length"},
		{"[model]\nnum_ctx = 99999999999\n", "model.num_ctx"},
		{"[model]\ntimeout = \"100000h\"\n", "model.timeout"},
		{"[[model.servers]]\nurl = \"http://127.0.0.1:1\"\nslots = -3\n", "model.servers.slots"},
		{"[workflow]\nmax_tool_result_chars = 9000000000000000000\n", "workflow.max_tool_result_chars"},
		{"[workflow]\nmax_tool_calls = 9000000000000000000\n", "workflow.max_tool_calls"},
		{"[workflow]\nparallel = 100000\n", "workflow.parallel"},
		{"[workflow]\nmax_file_size = \"4GB\"\n", "workflow.max_file_size"},
		{"[workflow]\ntoken_budget = -1\n", "workflow.token_budget"},
		{"[test]\nseed = 9223372036854775807\n", "test.seed"},
		{"[test]\nrepeat = 1000000000\n", "test.repeat"},
	} {
		_, err := Parse("config.toml", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(c.key, "model.servers.")) {
			t.Errorf("%q: Parse says %v, want an error about %s", c.text, err, c.key)
		}
		found := false
		for _, p := range Lint([]byte(c.text), LintOptions{}) {
			found = found || (p.Error && p.Key == c.key && p.Line > 0)
		}
		if !found {
			t.Errorf("%q: Lint has no error at %s: %+v", c.text, c.key, Lint([]byte(c.text), LintOptions{}))
		}
	}
	// The bounds themselves are accepted.
	ok := "[model]\nmax_output = 16777216\nnum_ctx = 16777216\ntemperature = 2.0\ntimeout = \"24h\"\n[workflow]\nmax_file_size = \"1GB\"\nparallel = 256\n[test]\nseed = 1\nrepeat = 1000\n"
	if _, err := Parse("config.toml", []byte(ok)); err != nil {
		t.Errorf("settings at their bounds: %v", err)
	}
}
