package workflow

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
)

// The one-line summaries the progress and the Runs view show count in
// words, never "check(s)".
func TestSummariesCountInWords(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{verifySummary([]state.VerifyResult{{OK: true}}), "verify: 1 check passed"},
		{verifySummary([]state.VerifyResult{{OK: true}, {OK: true}}), "verify: 2 checks passed"},
		{verifySummary([]state.VerifyResult{{OK: false}, {OK: true}}), "verify: 1 of 2 checks failed"},
		{(&run{res: &report.StageResult{Outputs: []string{"a"}}}).endMessage(), "wrote 1 output"},
		{(&run{res: &report.StageResult{Outputs: []string{"a", "b"}}}).endMessage(), "wrote 2 outputs"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
