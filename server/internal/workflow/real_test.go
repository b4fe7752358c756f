package workflow_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestRealOllamaStages runs stages against a real Ollama server (built from
// the pinned module) and its tiny byte-level model: the text is noise, the
// mechanics are real. Its window is twice the model's default: the first
// stage's whole contract, its inputs and its reference (about 4,000
// bytes, one token each) would leave no room for an answer in 4096.
func TestRealOllamaStages(t *testing.T) {
	const window = 2 * realollama.DefaultContextLength
	srv := realollama.Start(t, realollama.Options{Model: realollama.ModelSpec{ContextLength: window}})

	t.Run("icm run takes 01-scope to its gate and history shows real counts", func(t *testing.T) {
		dir := wstest.Copy(t, "course-research")
		// At the sample's temperature of 0.1 the random-weight model falls
		// into a loop of one token, and Ollama ends such an answer without
		// a done message (its 30-repeat guard); icm then refuses it, as the
		// llm tests show. Sampling at 1 gives the model's short answers.
		cfg, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
		cfg = []byte(strings.Replace(string(cfg), "temperature = 0.1", "temperature = 1.0", 1))
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		trusttest.Grant(t, dir) // the sample names its search server
		cmd := exec.Command(icmBin, "run", "--model", srv.Model)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "OLLAMA_HOST="+srv.URL)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("icm run: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "icm approve 01-scope") {
			t.Errorf("no review gate in:\n%s", out)
		}
		if st := stageState(t, openWS(t, dir), "01-scope"); st.Record == nil || st.Record.Status != state.RunDone {
			t.Fatalf("01-scope record: %+v", st.Record)
		}
		hist := exec.Command(icmBin, "history", "--json")
		hist.Dir = dir
		data, err := hist.Output()
		if err != nil {
			t.Fatal(err)
		}
		var runs []report.RunSummary
		if err := json.Unmarshal(data, &runs); err != nil || len(runs) != 1 || len(runs[0].Stages) != 1 {
			t.Fatalf("history: %s (%v)", data, err)
		}
		s := runs[0].Stages[0]
		// One token per byte: the server's count is the prompt's size, a few
		// thousand for this stage, not an estimate. The random model now and
		// then ends its first answer at once; the nudge that follows is a
		// second call of about the same size, so the count is per call.
		if s.ModelCalls < 1 || s.Prompt/s.ModelCalls < 3000 || s.Prompt/s.ModelCalls > window || s.Output == 0 || s.Duration <= 0 {
			t.Errorf("history of 01-scope: %+v", s)
		}
		t.Logf("01-scope against the real server: %d prompt tokens, %d output tokens, %s", s.Prompt, s.Output, s.Duration)
	})

	run := func(t *testing.T, input string) (int64, error) {
		dir := wstest.Copy(t, "course-research")
		if err := os.WriteFile(filepath.Join(dir, "pipeline/01-scope/input.md"), []byte(input), 0o644); err != nil {
			t.Fatal(err)
		}
		url, counter := realollama.CountChats(t, srv.URL)
		client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(url))
		if err != nil {
			t.Fatal(err)
		}
		eng, err := workflow.New(openWS(t, dir), workflow.Options{Client: client, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		_, err = eng.Run(context.Background())
		if _, serr := os.Stat(filepath.Join(dir, "pipeline/01-scope/output/objectives.md")); serr == nil {
			t.Error("an output was saved from a prompt that did not fit")
		}
		return counter.Chats(), err
	}
	prose := strings.Repeat("The learner installs the server, pulls a small model and calls it from a short script. ", 100)

	t.Run("a context larger than the window is refused before the call", func(t *testing.T) {
		chats, err := run(t, prose)
		if fault.KindOf(err) != fault.KindWindowExceeded || chats != 0 {
			t.Fatalf("kind %v after %d chat requests: %v", fault.KindOf(err), chats, err)
		}
		if !strings.Contains(err.Error(), "01-scope") {
			t.Errorf("the error does not name the stage: %v", err)
		}
	})
}
