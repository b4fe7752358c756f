package workflow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// icmProcess starts the icm binary in the harness's workspace (trusted
// for what it names), talking to the harness's model server, in its own
// process group.
func (h *harness) icmProcess(args ...string) (*exec.Cmd, *bytes.Buffer) {
	h.t.Helper()
	// As a person who trusted the workspace before running icm in it.
	trusttest.Grant(h.t, h.dir)
	cmd := exec.Command(icmBin, args...)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+h.srv.URL())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	return cmd, &out
}

func kill9(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
}

func TestForEachResumesAfterKill(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	// Part C hangs the first time: by the time its call arrives, A and B
	// are finished and saved (items run one at a time here).
	hold := make(chan struct{})
	defer close(hold)
	h.srv.On(ollamatest.LastUserContains("\n## Part C\n")).Times(1).Reply(ollamatest.Text("## Part C\n\nnever sent").WithHold(hold))
	scriptSmall(h.srv, 5)
	h.mustRun(workflow.Options{})
	h.approve("01-plan")
	cmd, out := h.icmProcess("run")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Active == 1 && countPart(h.srv, "C") == 1 }); err != nil {
		t.Fatalf("waiting for part C: %v\n%s", err, out)
	}
	kill9(cmd)
	before := map[string]int{}
	for _, p := range []string{"A", "B", "C", "D", "E"} {
		before[p] = countPart(h.srv, p)
	}
	sum := h.mustRun(workflow.Options{})
	r := sum.Ran[0]
	if r.Stage != "02-write" || r.Reused != 2 {
		t.Fatalf("resume: %+v", r)
	}
	for _, p := range []string{"A", "B"} {
		if countPart(h.srv, p) != before[p] {
			t.Errorf("part %s was asked again after the kill", p)
		}
	}
	for _, p := range []string{"C", "D", "E"} {
		if countPart(h.srv, p) != before[p]+1 {
			t.Errorf("part %s: %d calls before, %d after", p, before[p], countPart(h.srv, p))
		}
	}
	parts := h.read("pipeline/02-write/output/parts.md")
	last := -1
	for _, p := range []string{"A", "B", "C", "D", "E"} {
		i := strings.Index(parts, "## Part "+p)
		if i < last {
			t.Fatalf("parts out of order:\n%s", parts)
		}
		last = i
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pipeline/02-write/.icm/items")); !os.IsNotExist(err) {
		t.Error("finished items left behind after the stage completed")
	}
}

func countPart(srv *ollamatest.Server, part string) int {
	n := 0
	for _, r := range srv.ChatRequests() {
		if strings.Contains(r.LastUser(), "WRITE the part") && strings.Contains(r.LastUser(), "\n## Part "+part+"\n") {
			n++
		}
	}
	return n
}

// TestKillAtRandomMoments kills `icm run --all` with SIGKILL at random
// moments, many times. After every kill each output is absent, an old
// version or a new one, whole; `icm status` still reads the workspace; and
// a final run finishes the pipeline.
func TestKillAtRandomMoments(t *testing.T) {
	if testing.Short() {
		t.Skip("kill test: skipped with -short")
	}
	h := newSmall(t, ollamatest.Config{Latency: 15 * time.Millisecond})
	// Answers differ per call, so every run writes new outputs.
	n := 0
	h.srv.On(ollamatest.UserContains("PLAN the parts")).ReplyFunc(func(*ollamatest.Request) ollamatest.Turn {
		n++
		return ollamatest.Text(plan(1+n%4) + "\nversion " + strings.Repeat("x", n%7))
	})
	scriptSmall(h.srv, 0)
	valid := func(rel, text string) bool {
		switch {
		case strings.HasSuffix(rel, "plan.md"):
			return strings.HasPrefix(text, "# Plan\n") && strings.Contains(text, "\nversion") && strings.HasSuffix(text, "\n")
		case strings.HasSuffix(rel, "parts.md"):
			return strings.HasPrefix(text, "## Part A") && strings.HasSuffix(text, "Text of the part.\n")
		case strings.HasSuffix(rel, "count.txt"):
			return strings.TrimSpace(text) != ""
		}
		return false
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const kills = 60
	strays := 0
	for i := 0; i < kills; i++ {
		// Force a rerun of everything now and then so writes keep happening.
		args := []string{"run", "--all", "--force", "--gate", "rerun"}
		if i%3 == 0 {
			args = []string{"run", "--stage", "01-plan", "--force"}
		}
		cmd, _ := h.icmProcess(args...)
		time.Sleep(time.Duration(rng.IntN(120)) * time.Millisecond)
		kill9(cmd)
		for _, rel := range []string{"pipeline/01-plan/output/plan.md", "pipeline/02-write/output/parts.md", "pipeline/03-count/output/count.txt"} {
			data, err := os.ReadFile(filepath.Join(h.dir, rel))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil || !valid(rel, string(data)) {
				t.Fatalf("kill %d: %s is not a whole version: %q (%v)", i, rel, data, err)
			}
		}
		// A kill between creating a temporary file and renaming it into
		// place may leave one behind: it never counts as an output, and the
		// next run sweeps it (checked after the final run).
		if tmp := strayTemps(t, h.dir); len(tmp) > 0 {
			strays += len(tmp)
		}
		st := exec.Command(icmBin, "status", "--json")
		st.Dir = h.dir
		data, err := st.Output()
		if err != nil {
			t.Fatalf("kill %d: icm status failed: %v", i, err)
		}
		var s struct {
			Stages []struct{ Stage, Status string }
		}
		if err := json.Unmarshal(data, &s); err != nil || len(s.Stages) != 3 {
			t.Fatalf("kill %d: status output %s (%v)", i, data, err)
		}
		for _, st := range s.Stages {
			if !knownStates[st.Status] {
				t.Fatalf("kill %d: stage %s is %q, not a known state", i, st.Stage, st.Status)
			}
		}
	}
	t.Logf("%d kills left %d temporary file(s) along the way", kills, strays)
	// After all that, a clean run completes the pipeline.
	cmd, out := h.icmProcess("run", "--all", "--force", "--gate", "rerun")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	// Every stage ran to its gate or past it: nothing is left stale,
	// failed or pending, and 03-count's own gate is auto.
	got := h.status()
	for name, s := range got {
		if s != state.Approved && s != state.Awaiting {
			t.Errorf("after the final run %s is %s", name, s)
		}
	}
	if got["03-count"] != state.Approved || len(got) != 3 {
		t.Errorf("final status %v", got)
	}
	if tmp := strayTemps(t, h.dir); len(tmp) > 0 {
		t.Errorf("temporary files left after the final run: %v", tmp)
	}
	for _, rel := range []string{"pipeline/01-plan/output/plan.md", "pipeline/02-write/output/parts.md", "pipeline/03-count/output/count.txt"} {
		data, err := os.ReadFile(filepath.Join(h.dir, rel))
		if err != nil || !valid(rel, string(data)) {
			t.Errorf("after the final run %s = %q (%v)", rel, data, err)
		}
	}
}

// knownStates are the states icm status may report.
var knownStates = map[string]bool{"pending": true, "awaiting-review": true, "approved": true, "stale": true, "failed": true, "invalid": true}

// strayTemps lists the atomic writes' temporary files (".NAME.tmp-*")
// anywhere in the workspace.
func strayTemps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp-") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
