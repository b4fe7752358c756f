package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// gatedMap is a stage that declares three files (one outside output/),
// whose contract icm reads with a warning, and whose notes a later stage
// reads by a heading.
const gatedMap = mapWithPartial + `
## Verify
- min-words many
-- stages/02-plan/CONTEXT.md --
# Stage: 02-plan

## Inputs
- Layer 4 (working): ../01-map/output/notes.md#Open questions

## Process
Plan the work.

## Outputs
- plan.md -> output/
`

// TestTheGateSummaryIsOneInRunAndStatus: the warnings of the run, the
// outputs missing, the proposed changes and the headings a later stage
// reads are one summary at the gate, each line with its word (FAIL,
// WARN); icm status prints the same lines under the stage awaiting review.
func TestTheGateSummaryIsOneInRunAndStatus(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192, Capabilities: []string{"completion", "tools"}}}})
	srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(
		ollamatest.Call("write_output", map[string]any{"path": "_config/endpoint-map.md", "content": "# Endpoint map\n\n- GET /health\n"}),
		ollamatest.Call("write_output", map[string]any{"path": "output/notes.md", "content": "# Notes\n\nNone yet.\n"})))
	srv.Default(ollamatest.Text("Wrote the map and the notes."))
	dir := wstest.Write(t, gatedMap)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, errOut, code := runAsUser(t, dir, vars, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	want := []string{
		"FAIL 2 of 3 outputs written; still missing: output/risks.md; run the stage again for the rest",
		"WARN It proposes 1 change outside output/, applied only when you approve",
		"_config/endpoint-map.md",
		`WARN stages/01-map/output/notes.md lacks "Open questions", which 02-plan reads (stages/02-plan/CONTEXT.md:4): add the heading, or 02-plan gets the whole file`,
		"WARN icm read the contract with 1 warning (the stage ran all the same)",
		"stages/01-map/CONTEXT.md:14: min-words",
	}
	ran := gateBlock(out)
	for _, w := range want {
		if !strings.Contains(ran, w) {
			t.Errorf("icm run's gate lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(out, "icm run --stage 01-map") {
		t.Errorf("the missing output's line does not say how to run the stage for the rest:\n%s", out)
	}
	status, errOut, code := runAsUser(t, dir, vars, "status")
	if code != 0 {
		t.Fatalf("status: %d\n%s%s", code, status, errOut)
	}
	if got := gateBlock(status); got != ran {
		t.Errorf("icm status's gate lines differ from icm run's:\nstatus:\n%s\nrun:\n%s", got, ran)
	}
	// A script reads the same summary from icm status --json.
	asJSON, errOut, code := runAsUser(t, dir, vars, "status", "--json")
	if code != 0 {
		t.Fatalf("status --json: %d\n%s%s", code, asJSON, errOut)
	}
	var st struct {
		Gates []report.Gate `json:"gates"`
	}
	if err := json.Unmarshal([]byte(asJSON), &st); err != nil {
		t.Fatalf("%v:\n%s", err, asJSON)
	}
	if len(st.Gates) != 1 || st.Gates[0].Stage != "01-map" || len(st.Gates[0].Missing) != 1 ||
		len(st.Gates[0].Proposed) != 1 || len(st.Gates[0].Lacked) != 1 || len(st.Gates[0].Warnings) != 1 {
		t.Errorf("icm status --json's gates: %+v\n%s", st.Gates, asJSON)
	}
}

// gateBlock is the gate summary's lines of a command's output: each line
// that opens with a gate word and its items under it, trimmed.
func gateBlock(out string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "FAIL ") || strings.HasPrefix(t, "WARN "):
			in = true
		case in && strings.HasPrefix(l, "      "):
		default:
			in = false
		}
		if in {
			b.WriteString(t + "\n")
		}
	}
	return b.String()
}

const openReview = `
-- CLAUDE.md --
# Reviews
-- config.toml --
[model]
name = "m"
-- stages/01-review/CONTEXT.md --
# Stage: 01-review

## Process
Review the change for readability and risk.

## Outputs
- A review report with findings
`

// TestTheGateListsWhatAContractNamingNoFileGot: of a contract that names
// no output file, the model writes new files into output/, and the gate
// (icm run's and icm status's alike) lists them before anything reads them.
func TestTheGateListsWhatAContractNamingNoFileGot(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192, Capabilities: []string{"completion", "tools"}}}})
	srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(
		ollamatest.Call("write_output", map[string]any{"path": "output/review.md", "content": "# Review\n\nReadable.\n"})))
	srv.Default(ollamatest.Text("Wrote the review."))
	dir := wstest.Write(t, openReview)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, errOut, code := runAsUser(t, dir, vars, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	const want = "WARN The contract names no output file; the model wrote 1 file into output/\nstages/01-review/output/review.md\n"
	if got := gateBlock(out); got != want {
		t.Errorf("icm run's gate = %q, want %q:\n%s", got, want, out)
	}
	status, _, _ := runAsUser(t, dir, vars, "status")
	if got := gateBlock(status); got != want {
		t.Errorf("icm status's gate = %q, want %q:\n%s", got, want, status)
	}
}
