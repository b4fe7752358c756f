package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// Case 9 through the command line: a model server that answers far past
// max_output, and calls the answer finished, gets no output saved: the run
// ends incomplete and output/ stays empty.
func TestRunawayAnswerIsNotSaved(t *testing.T) {
	for _, name := range []string{"finite", "endless"} {
		t.Run(name, func(t *testing.T) {
			dir := newWS(t, strings.Replace(oneStage, "name = \"tiny\"", "name = \"tiny\"\nmax_output = 64", 1))
			srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
			n := 100000
			if name == "endless" {
				n = 0
			}
			srv.Default(ollamatest.Flood("word ", n))
			out, errOut, err := runIn(t, dir, map[string]string{"OLLAMA_HOST": srv.URL()}, "run")
			if err == nil || !strings.Contains(out+errOut+err.Error(), "output limit") {
				t.Errorf("run (err %v) did not end at the output limit:\n%.1000s%.1000s", err, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, "pipeline/01-a/output/out.md")); err == nil {
				t.Error("an answer past max_output was saved as the output")
			}
		})
	}
}
