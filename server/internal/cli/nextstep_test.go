package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/usersettings"
)

// meetingWorkspace is three model stages, each reading the one before:
// the notes cleaned, the actions listed, the email written.
const meetingWorkspace = `
-- CLAUDE.md --
# Meeting notes
-- config.toml --
[model]
name = "MODEL"
-- pipeline/01-clean/notes.md --
# Notes

Anna sends the budget. Bo books the room.
-- pipeline/01-clean/CONTEXT.md --
# Stage: 01-clean

## Inputs
- Layer 4 (working): notes.md

## Process
Clean up the meeting notes.

## Outputs
- clean.md -> output/
-- pipeline/02-actions/CONTEXT.md --
# Stage: 02-actions

## Inputs
- Layer 4 (working): ../01-clean/output/clean.md

## Process
List the actions.

## Outputs
- actions.md -> output/
-- pipeline/03-email/CONTEXT.md --
# Stage: 03-email

## Inputs
- Layer 4 (working): ../02-actions/output/actions.md

## Process
Write the follow-up email.

## Outputs
- email.md -> output/
`

// meeting writes the meeting workspace naming model, and a scripted model
// server that has "tiny" and "qwen3.5:9b" and answers every call.
func meeting(t *testing.T, model string) (string, *ollamatest.Server, map[string]string) {
	t.Helper()
	trusttest.ConfigDir(t)
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}, {Name: "qwen3.5:9b", ContextLength: 32768}}})
	srv.Default(ollamatest.Text("# Out\n\nWhat the stage wrote."))
	dir := wstest.Write(t, strings.ReplaceAll(meetingWorkspace, "MODEL", model))
	return dir, srv, map[string]string{"OLLAMA_HOST": srv.URL()}
}

// atTerminal runs icm in dir as a person at a terminal who types answer.
func atTerminal(t *testing.T, dir string, vars map[string]string, answer string, args ...string) (string, string, int) {
	t.Helper()
	return runAnswering(t, dir, vars, answer, true, args...)
}

// statusLine is the line `icm status` prints for stage.
func statusLine(t *testing.T, out, stage string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, stage+" ") {
			return l
		}
	}
	t.Fatalf("icm status has no line for %s:\n%s", stage, out)
	return ""
}

// TestStageAfterAnUnapprovedOneAsksFirst: with 01-clean awaiting review,
// `icm run --stage 02-actions` ran without a word. Now it refuses
// without a terminal, naming the stage to approve, and asks at one; no
// is a refusal too, and neither calls the model.
func TestStageAfterAnUnapprovedOneAsksFirst(t *testing.T) {
	dir, srv, vars := meeting(t, "tiny")
	if _, errOut, code := runAsUser(t, dir, vars, "run"); code != 0 {
		t.Fatalf("run: %s", errOut)
	}
	calls := len(srv.ChatRequests())
	actions := filepath.Join(dir, "pipeline", "02-actions", "output", "actions.md")

	out, errOut, code := runAsUser(t, dir, vars, "run", "--stage", "02-actions")
	if code == 0 {
		t.Errorf("02-actions ran past 01-clean's gate without a word:\n%s%s", out, errOut)
	}
	if !strings.Contains(errOut, "01-clean") || !strings.Contains(errOut, "icm approve 01-clean") {
		t.Errorf("the refusal does not name the stage to approve:\n%s", errOut)
	}

	_, errOut, code = atTerminal(t, dir, vars, "n\n", "run", "--stage", "02-actions")
	if code == 0 || !strings.Contains(errOut, "[y/N]") {
		t.Errorf("at a terminal, no question or a no that ran (exit %d):\n%s", code, errOut)
	}
	if n := len(srv.ChatRequests()); n != calls || exists(actions) {
		t.Errorf("a refused run called the model (%d calls, were %d) or wrote %s", n, calls, actions)
	}
}

// TestTheGateNamesTheStageThatRan: run at a terminal past 01-clean's
// gate, 02-actions stopped at a gate that said to read its output, then
// `icm approve 01-clean`.
func TestTheGateNamesTheStageThatRan(t *testing.T) {
	dir, _, vars := meeting(t, "tiny")
	if _, errOut, code := runAsUser(t, dir, vars, "run"); code != 0 {
		t.Fatalf("run: %s", errOut)
	}
	out, errOut, code := atTerminal(t, dir, vars, "y\n", "run", "--stage", "02-actions")
	if code != 0 {
		t.Fatalf("run --stage 02-actions, answered yes: exit %d\n%s%s", code, out, errOut)
	}
	gate := out[strings.Index(out, "Review gate:"):]
	if !strings.Contains(gate, "actions.md") || !strings.Contains(gate, "icm approve 02-actions") || strings.Contains(gate, "approve 01-clean") {
		t.Errorf("the gate does not name the stage that ran:\n%s", out)
	}
}

// TestARefusedStageKeepsItsState: with nothing upstream, `icm run
// --stage 03-email` refused, and from then on 03-email read "failed"
// though no model was called. A refusal is not a failure: asked, and
// answered yes, the run is refused again for the missing input, and the
// stage is still pending.
func TestARefusedStageKeepsItsState(t *testing.T) {
	dir, srv, vars := meeting(t, "tiny")
	if _, _, code := runAsUser(t, dir, vars, "run", "--stage", "03-email"); code == 0 {
		t.Fatal("03-email ran with nothing upstream")
	}
	_, errOut, code := atTerminal(t, dir, vars, "y\n", "run", "--stage", "03-email")
	if code == 0 || !strings.Contains(errOut, "actions.md") {
		t.Errorf("run anyway: exit %d, no word of the missing input:\n%s", code, errOut)
	}
	if n := len(srv.ChatRequests()); n != 0 {
		t.Errorf("the refused runs called the model %d times", n)
	}
	out, errOut, code := runAsUser(t, dir, vars, "status")
	if code != 0 {
		t.Fatalf("status: %s", errOut)
	}
	if l := statusLine(t, out, "03-email"); !strings.Contains(l, "pending") || strings.Contains(l, "failed") {
		t.Errorf("a refused stage changed its state:\n%s", out)
	}
}

// TestDoctorsNextStepSaysWhatBlocks: `icm doctor` showed ✗ model server
// or ✗ trust and still ended "next: 01-draft ready to run".
func TestDoctorsNextStepSaysWhatBlocks(t *testing.T) {
	trusttest.ConfigDir(t)
	t.Run("server", func(t *testing.T) {
		dir, _, _ := meeting(t, "tiny")
		out, _, _ := runDoctor(t, dir, closedPort(t))
		next := out[strings.Index(out, "next:"):]
		if !strings.Contains(out, "✗ model server") || strings.Contains(next, "`icm run`") || !strings.Contains(next, "model server") {
			t.Errorf("the next step ignores the model server:\n%s", out)
		}
	})
	t.Run("trust", func(t *testing.T) {
		srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3:4b", ContextLength: 32768}}})
		out, _, _ := runDoctor(t, untrustedDoctorDir(t, closedPort(t)), srv.URL())
		next := out[strings.Index(out, "next:"):]
		if !strings.Contains(out, "✗ trust") || strings.Contains(next, "`icm run`") || !strings.Contains(next, "`icm trust`") {
			t.Errorf("the next step ignores trust:\n%s", out)
		}
	})
}

// TestDoctorOffersTheInstalledModelNotTheTypo: with qwen35:9b named and
// qwen3.5:9b installed, the doctor's fix was `icm pull qwen35:9b`.
func TestDoctorOffersTheInstalledModelNotTheTypo(t *testing.T) {
	dir, srv, _ := meeting(t, "qwen35:9b")
	out, _, _ := runDoctor(t, dir, srv.URL())
	if strings.Contains(out, "icm pull qwen35:9b") || !strings.Contains(out, `name = "qwen3.5:9b"`) {
		t.Errorf("the fix pulls the typo, or does not name the installed model:\n%s", out)
	}
	if next := out[strings.Index(out, "next:"):]; strings.Contains(next, "ready to run") || !strings.Contains(next, "config.toml") {
		t.Errorf("the next step does not say config.toml must be fixed:\n%s", out)
	}
}

// TestAMistypedModelIsAConfigError: after a run with a mistyped model,
// status said "failed … runs again", where the README says config error.
func TestAMistypedModelIsAConfigError(t *testing.T) {
	dir, _, vars := meeting(t, "qwen35:9b")
	if _, _, code := runAsUser(t, dir, vars, "run"); code == 0 {
		t.Fatal("a run with a model the server lacks succeeded")
	}
	out, errOut, code := runAsUser(t, dir, vars, "status")
	if code != 0 {
		t.Fatalf("status: %s", errOut)
	}
	next := out[strings.Index(out, "next:"):]
	if l := statusLine(t, out, "01-clean"); !strings.Contains(l, "config error") || strings.Contains(next, "runs again") {
		t.Errorf("a mistyped model is not told as a config error:\n%s", out)
	}
}

// TestStatusDuringARunShowsItRunning: while a run works on 01-clean,
// `icm status` said "pending" and "next: 01-clean ready to run".
func TestStatusDuringARunShowsItRunning(t *testing.T) {
	dir, srv, vars := meeting(t, "tiny")
	srv.On(ollamatest.Any()).Reply(ollamatest.Hang())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var out, errb bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
			if v, ok := vars[k]; ok || k != usersettings.ConfigDirEnv {
				return v
			}
			return os.Getenv(k)
		}, Getwd: func() (string, error) { return dir, nil }}
		_ = Run(ctx, env, []string{"run"})
	}()
	defer func() { cancel(); <-done }()
	wait, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	if err := srv.AwaitChats(wait, 1); err != nil {
		t.Fatalf("the run never called the model: %v", err)
	}
	out, errOut, code := runAsUser(t, dir, vars, "status")
	if code != 0 {
		t.Fatalf("status: %s", errOut)
	}
	next := out[strings.Index(out, "next:"):]
	if l := statusLine(t, out, "01-clean"); !strings.Contains(l, "running") || strings.Contains(next, "ready to run") {
		t.Errorf("the stage a run works on does not read running:\n%s", out)
	}
}

// TestARunWithAMistypedModelNeverOffersToPullIt: a run naming qwen35:9b,
// with qwen3.5:9b installed, offered `ollama pull qwen35:9b` and `icm
// pull qwen35:9b` beside the installed model. Pulling a misspelling is
// never the fix.
func TestARunWithAMistypedModelNeverOffersToPullIt(t *testing.T) {
	dir, _, vars := meeting(t, "qwen35:9b")
	_, errOut, code := runAsUser(t, dir, vars, "run")
	if code == 0 {
		t.Fatal("a run with a model the server lacks succeeded")
	}
	if strings.Contains(errOut, "pull qwen35:9b") || strings.Contains(errOut, `pull "qwen35:9b"`) || !strings.Contains(errOut, "qwen3.5:9b") {
		t.Errorf("the run offers to pull the typo, or does not name the installed model:\n%s", errOut)
	}
}

// A model name mistyped after the stages were approved makes them a
// config error, their approvals kept: a run of a later stage says the
// model is not installed and names the one meant, as icm run does, not
// that an earlier stage is unapproved (the typo, not a gate, blocks it).
func TestAMistypedModelAfterApprovalsIsTheModelNotTheGate(t *testing.T) {
	dir, _, vars := meeting(t, "qwen3.5:9b")
	for _, stage := range []string{"01-clean", "02-actions"} {
		if out, errOut, code := runAsUser(t, dir, vars, "run", "--stage", stage); code != 0 {
			t.Fatalf("run %s: %d\n%s%s", stage, code, out, errOut)
		}
		if out, errOut, code := runAsUser(t, dir, vars, "approve", stage); code != 0 {
			t.Fatalf("approve %s: %d\n%s%s", stage, code, out, errOut)
		}
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[model]\nname = \"qwen3.5:9\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runAsUser(t, dir, vars, "run", "--stage", "03-email", "--json")
	if code == 0 {
		t.Fatalf("a run with a model the server lacks succeeded:\n%s", out)
	}
	if strings.Contains(out+errOut, `"error_kind":"unapproved"`) || strings.Contains(errOut, "not approved") || !strings.Contains(out+errOut, "qwen3.5:9b") {
		t.Errorf("the run blames a gate, or does not name the installed model:\n%s%s", out, errOut)
	}
}
