package stagetest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/need"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestRealOllamaMechanics runs cases against the real Ollama server and
// its tiny random-weight model. What the model writes is noise (printable
// ASCII), so the test asserts what does not depend on it: every job runs
// and is judged in its copy, the server's token counts come back, a fixed
// seed gives the same answer again, an expectation the noise cannot meet
// fails while one it cannot break passes, the cache makes a second run
// send nothing, and the JUnit report validates.
func TestRealOllamaMechanics(t *testing.T) {
	srv := realollama.Start(t, realollama.Options{})
	dir := wstest.Write(t, fmt.Sprintf(`
-- CLAUDE.md --
# Real server
-- config.toml --
[model]
name = %q
base_url = %q
# At low temperatures the random weights fall into a loop of one token,
# which Ollama cuts without a done message; 1.0 gives short answers.
temperature = 1.0
max_output = 2048
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): input.md

## Tools
none

## Process
Say something about the input.

## Outputs
- out.md -> output/
-- pipeline/01-a/input.md --
The workspace's input.
-- pipeline/01-a/tests/noise.md --
# Case: what the noise cannot break

## Inputs
### input.md
~~~
A stand-in for the input.
~~~

## Expect
- not-contains "é"
- max-words 100000
-- pipeline/01-a/tests/impossible.md --
# Case: what the noise cannot meet

## Inputs
### input.md
~~~
Another stand-in.
~~~

## Expect
- contains "é"
`, srv.Model, srv.URL))
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	url, counter := realollama.CountChats(t, srv.URL)
	client, err := llm.FromConfig(ws.Config.Model, func(string) string { return "" }, llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(url))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(ws, check.Run(ws, check.Options{}), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(opts Options) *report.TestReport {
		return New(ws, Backend{Client: client, Permit: allowAll}, opts).Run(context.Background(), sel)
	}
	// Repeats 1 and 2 of the first run have seeds 7 and 8; the second run
	// starts at 8, so its first repeat must say what the first run's second did.
	first := run(Options{Repeat: 2, Seed: 7, Cache: true})
	calls := counter.Chats()
	for _, r := range first.Results {
		if r.Status == report.TestError || r.Status == report.TestCancelled {
			t.Fatalf("%s #%d: %s: %s", r.Case, r.Repeat, r.Status, r.Error)
		}
		if r.PromptTokens == 0 || r.ModelCalls == 0 || r.Outputs[r.Output] == "" {
			t.Errorf("%s #%d: tokens %d, calls %d, output %q", r.Case, r.Repeat, r.PromptTokens, r.ModelCalls, r.Outputs[r.Output])
		}
	}
	if row, _ := first.Row("01-a/noise", srv.Model); row.Rate() != "2/2" {
		t.Errorf("noise: %+v", row)
	}
	if row, _ := first.Row("01-a/impossible", srv.Model); row.Rate() != "0/2" || !strings.HasPrefix(row.FirstFailure, `contains "é": `) {
		t.Errorf("impossible: %+v", row)
	}
	if calls < 4 {
		t.Errorf("%d chat calls for 4 jobs", calls)
	}
	// The same seed, without the cache: the server says the same thing again.
	again := run(Options{Repeat: 1, Seed: 8})
	for _, id := range []string{"01-a/noise", "01-a/impossible"} {
		a, b := result(t, first, id, srv.Model, 2), result(t, again, id, srv.Model, 1)
		if a.Seed != 8 || b.Seed != 8 || a.Outputs[a.Output] != b.Outputs[b.Output] {
			t.Errorf("%s with seed 8 twice: %q then %q", id, a.Outputs[a.Output], b.Outputs[b.Output])
		}
	}
	// The cache: the first run's requests again, and not one reaches the server.
	calls = counter.Chats()
	cached := run(Options{Repeat: 2, Seed: 7, Cache: true})
	if n := counter.Chats() - calls; n != 0 {
		t.Errorf("the cached run sent %d chat requests", n)
	}
	for i, r := range cached.Results {
		if r.Cache == nil || r.Cache.Misses != 0 || r.Cache.Hits == 0 || r.Outputs[r.Output] != first.Results[i].Outputs[first.Results[i].Output] {
			t.Errorf("%s #%d from the cache: %+v", r.Case, r.Repeat, r.Cache)
		}
	}
	t.Run("the JUnit file validates", func(t *testing.T) {
		xmllint := need.Program(t, "xmllint")
		out := filepath.Join(t.TempDir(), "junit.xml")
		if err := WriteJUnitFile(out, first); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit-10.xsd"), out).CombinedOutput(); err != nil {
			t.Errorf("xmllint: %v\n%s", err, msg)
		}
	})
}
