package workflow_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// draftRun is the sample's 04-draft (course-research, five outline
// items) run once against a real Ollama server with the tiny Qwen3 model:
// icm's model events and the server's cache-slot lines for those calls.
type draftRun struct {
	calls []*report.ModelEvent
	loads []realollama.CacheLoad
	stage *report.StageTrace
}

// draftItems is how many items runDraft's outline has.
const draftItems = 5

// draftSettings are what a run of 04-draft is asked to do.
type draftSettings struct {
	parallel int
	warm     bool
	// slots and multiUser are what config.toml says of the server.
	slots     int
	multiUser bool
}

// runDraft runs 04-draft with settings against srv (which must log at
// debug level) and reads what each call did from the trace and the
// server's log (only the lines the run added).
func runDraft(t testing.TB, srv *realollama.Server, s draftSettings) draftRun {
	t.Helper()
	dir, _ := wstest.CopyWithSamples(t, "course-research")
	cfg := fmt.Sprintf(`[model]
name = %q
# At the sample's 0.1 the random-weight model loops on one token.
temperature = 1.0
think = false
slots = %d
multiuser_cache = %t

[workflow]
parallel = %d
warm_first = %t
`, srv.Model, s.slots, s.multiUser, s.parallel, s.warm)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// The sample's outline has four modules; a fifth of the same kind.
	outline := filepath.Join(dir, "pipeline/03-outline/output/outline.md")
	text, err := os.ReadFile(outline)
	if err != nil {
		t.Fatal(err)
	}
	text = append(text, "\n## Module 5: Keeping models current\n\n- `ollama list` and `ollama pull` again to update a model.\n- Removing one with `ollama rm`; what `ollama ps` shows after.\n"...)
	if err := os.WriteFile(outline, text, 0o644); err != nil {
		t.Fatal(err)
	}
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL),
		llm.WithModelFiles(ollamamodel.NewCache([]string{srv.ModelsDir})))
	if err != nil {
		t.Fatal(err)
	}
	before, err := srv.CacheLoads()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := workflow.New(openWS(t, dir), workflow.Options{Client: client, Stage: "04-draft", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := eng.Run(context.Background())
	if err != nil {
		t.Logf("04-draft: %v (the random model's text may fail the stage's checks; its calls are what counts)", err)
	}
	run, err := workflow.Run(openWS(t, dir), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var out draftRun
	for _, ev := range run.Events {
		if ev.Kind == report.EventModel && ev.Model != nil && ev.Model.Err == "" {
			out.calls = append(out.calls, ev.Model)
		}
	}
	for _, st := range run.Stages {
		if st.Stage == "04-draft" {
			out.stage = st
		}
	}
	after, err := srv.CacheLoads()
	if err != nil {
		t.Fatal(err)
	}
	out.loads = after[len(before):]
	if len(out.calls) < draftItems || len(out.loads) != len(out.calls) {
		t.Fatalf("%d model calls, %d cache-slot lines in the server's log", len(out.calls), len(out.loads))
	}
	return out
}

// startDraftServer is a real Ollama server for runDraft: four slots, the
// tiny model with Qwen3's vocabulary, debug logging, and env on top.
func startDraftServer(t testing.TB, env map[string]string) *realollama.Server {
	t.Helper()
	realollama.NeedQwen3(t)
	all := map[string]string{"OLLAMA_DEBUG": "1"}
	for k, v := range env {
		all[k] = v
	}
	// Answers of about a hundred tokens: a real model's first answer goes
	// on well after the others are sent, which is the case the
	// prediction is for (the tiny model's usual twenty tokens can end
	// while the others are still on their way to the runner).
	return realollama.Start(t, realollama.Options{NumParallel: 4, Env: all,
		Model: realollama.ModelSpec{Vocabulary: realollama.VocabQwen3, ContextLength: 32768, EndChance: 0.01}})
}

// TestPredictedReuseIsWhatTheServerReused: against the real server, one
// item at a time, icm's predicted reused tokens for each call equal the
// tokens the server's runner took from its slot (its log's used=); with
// four items at once after the first, the stage's predicted sum is within
// 2% of the server's.
//
// Each case has a server of its own: a run predicts from the prompts it
// sent, and a server's slots still hold an earlier run's.
func TestPredictedReuseIsWhatTheServerReused(t *testing.T) {
	t.Run("one at a time", func(t *testing.T) {
		r := runDraft(t, startDraftServer(t, nil), draftSettings{parallel: 1, warm: true, slots: 4})
		for i, m := range r.calls {
			l := r.loads[i]
			if m.Reused != l.Used || m.PromptTokens != l.Prompt || m.ReuseMeasured {
				t.Errorf("call %d: icm predicted %d of %d tokens reused; the server reused %d of %d", i+1, m.Reused, m.PromptTokens, l.Used, l.Prompt)
			}
		}
	})
	// Which slot the fifth item lands in depends on which of the four
	// answers ends first, and two that end together leave the server a
	// choice icm cannot see: a loaded machine shifts those ends. A stage
	// is run up to three times, each on a fresh server, and one of them
	// must be within 2%; a wrong prediction misses in every one.
	fanOut := func(t *testing.T, env map[string]string, multiUser bool) {
		var runs []string
		for range 3 {
			r := runDraft(t, startDraftServer(t, env), draftSettings{parallel: 4, warm: true, slots: 4, multiUser: multiUser})
			predicted, used := 0, 0
			for i, m := range r.calls {
				predicted += m.Reused
				used += r.loads[i].Used
			}
			t.Logf("reused: predicted %d, the server %d", predicted, used)
			if diff := float64(predicted-used) / float64(max(used, 1)); diff <= 0.02 && diff >= -0.02 {
				return
			}
			runs = append(runs, fmt.Sprintf("predicted %d, the server reused %d", predicted, used))
		}
		t.Errorf("icm's prediction of the tokens reused over the stage missed by more than 2%% in every run: %s", strings.Join(runs, "; "))
	}
	t.Run("four at once after the first", func(t *testing.T) { fanOut(t, nil, false) })
	t.Run("four at once after the first, sharing on the new engine", func(t *testing.T) {
		fanOut(t, map[string]string{"OLLAMA_NEW_ENGINE": "1", "OLLAMA_MULTIUSER_CACHE": "1"}, true)
	})
}

// prefillBenchEnv turns TestPrefillBenchmark on: it starts eighteen real
// servers and takes minutes, so it runs by hand (bench/prefill.sh).
const prefillBenchEnv = "ICM_PREFILL_BENCH"

// TestPrefillBenchmark measures what 04-draft's five items cost in
// prefill against a 4-slot server, for parallel 1, 2 and 4, items sent
// together (warm_first = false, as before) or the first alone, on three
// servers: the default (llama.cpp's runner for this model), Ollama's new
// engine, and the new engine with the multi-user cache. It logs a
// Markdown table: the tokens the server computed (its log's remaining=)
// against the least the stage could (the first prompt whole, the others'
// own tokens), and the server's prefill time. Not a timed test: run it
// by hand.
func TestPrefillBenchmark(t *testing.T) {
	if os.Getenv(prefillBenchEnv) == "" {
		t.Skip("set " + prefillBenchEnv + "=1 to run the prefill benchmark (bench/prefill.sh)")
	}
	servers := []struct {
		name      string
		env       map[string]string
		multiUser bool
	}{
		{"default runner", nil, false},
		{"new engine", map[string]string{"OLLAMA_NEW_ENGINE": "1"}, false},
		{"new engine, multi-user cache", map[string]string{"OLLAMA_NEW_ENGINE": "1", "OLLAMA_MULTIUSER_CACHE": "1"}, true},
	}
	var rows []string
	for _, sv := range servers {
		for _, parallel := range []int{1, 2, 4} {
			for _, warm := range []bool{false, true} {
				// A fresh server each time: nothing cached from the run before.
				srv := startDraftServer(t, sv.env)
				r := runDraft(t, srv, draftSettings{parallel: parallel, warm: warm, slots: 4, multiUser: sv.multiUser})
				computed, least := 0, 0
				var eval time.Duration
				for i, m := range r.calls {
					computed += r.loads[i].Remaining
					least += m.Own
					eval += m.PromptEval
				}
				schedule := "together"
				if warm {
					schedule = "first alone"
				}
				rows = append(rows, fmt.Sprintf("| %s | %d | %s | %d | %d | %.2f× | %s |", sv.name, parallel, schedule, computed, least,
					float64(computed)/float64(max(least, 1)), eval.Round(time.Millisecond)))
				if err := srv.Stop(context.Background()); err != nil {
					t.Error(err)
				}
			}
		}
	}
	t.Logf("04-draft, %d items, a 4-slot server:\n\n| server | parallel | items | computed | least | ratio | prefill time |\n| --- | --- | --- | --- | --- | --- | --- |\n%s",
		draftItems, strings.Join(rows, "\n"))
}

// TestRealRunnerStopsAtTheFirstCopy: the real server with the multi-user
// cache, on llama.cpp's runner (which serves the tiny model's llama
// architecture), stops its runner when a second call copies the first
// one's computed prompt: it answers the streaming call and the new one in
// the words testdata/runner-stopped.json keeps, which the scripted test
// replays; and a run of 04-draft with items at once against it fails
// with the runner-stopped fault.
func TestRealRunnerStopsAtTheFirstCopy(t *testing.T) {
	want := readRunnerStopped(t)
	srv := startDraftServer(t, map[string]string{"OLLAMA_MULTIUSER_CACHE": "1"})
	shared := strings.Repeat("The learner installs the server and pulls a model. ", 40)
	body := func(item string) io.Reader {
		b, _ := json.Marshal(map[string]any{"model": srv.Model, "stream": true, "think": false,
			"messages": []map[string]string{{"role": "system", "content": shared}, {"role": "user", "content": item}},
			"options":  map[string]any{"num_ctx": 4096, "num_predict": 400}})
		return bytes.NewReader(b)
	}
	// The second call copies the first one's start and stops the runner
	// whether the first still runs or not; the first's stream carries the
	// assertion only when it was still answering, which a loaded machine
	// does not always give: a few tries.
	var status int
	var answer, streamed string
	for try := 0; try < 3 && streamed == ""; try++ {
		status, answer, streamed = copyUnderAStream(t, srv.URL, body)
		if status != want.Status || !strings.Contains(answer, want.Error) {
			t.Errorf("the call that copied: %d %q, want %d %q", status, answer, want.Status, want.Error)
		}
	}
	// The runner's last words reach the server in pieces: the assertion
	// ends in ") failed" or in ");" as the crash's output was cut. The
	// assertion itself is what icm reads, and the replay must carry it.
	const assertion = `GGML_ASSERT(is_full && "seq_cp() is only supported for full KV buffers")`
	if !strings.Contains(streamed, assertion) || !strings.Contains(want.StreamError, assertion) {
		t.Errorf("the streaming call's error: %q, want %q", streamed, want.StreamError)
	}

	dir, _ := wstest.CopyWithSamples(t, "course-research")
	cfg := fmt.Sprintf("[model]\nname = %q\ntemperature = 1.0\nthink = false\n\n[workflow]\nparallel = 2\n", srv.Model)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := workflow.New(openWS(t, dir), workflow.Options{Client: client, Stage: "04-draft", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Run(context.Background())
	if f := fault.From(err); f.Kind != fault.KindRunnerStopped || !strings.Contains(f.Hint, "OLLAMA_MULTIUSER_CACHE") {
		t.Errorf("the run: kind %s, hint %q: %v", fault.KindOf(err), fault.From(err).Hint, err)
	}
}

// copyUnderAStream starts a streaming call and, at its first chunk, a
// second one that shares its start: the second's status and error, and
// the error the first's stream ended with ("" when it finished first).
func copyUnderAStream(t *testing.T, url string, body func(string) io.Reader) (int, string, string) {
	t.Helper()
	first := make(chan struct{})
	streamErr := make(chan string, 1)
	go func() {
		defer close(streamErr)
		started := sync.OnceFunc(func() { close(first) })
		defer started()
		resp, err := http.Post(url+"/api/chat", "application/json", body("item one"))
		if err != nil {
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			started()
			var c struct {
				Error string `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &c) == nil && c.Error != "" {
				streamErr <- c.Error
			}
		}
	}()
	<-first
	resp, err := http.Post(url+"/api/chat", "application/json", body("item two"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var answer struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(data, &answer); err != nil {
		answer.Error = string(data)
	}
	return resp.StatusCode, answer.Error, <-streamErr
}
