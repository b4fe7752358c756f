package workflow_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestToolServerFaults runs a stage whose MCP server floods stderr, spawns
// a grandchild, hangs past the call deadline and then dies mid-call. Each
// fault reaches the model as a tool error naming the server, the stage
// still finishes, and no process of the server is left afterwards.
//
// The call deadline bounds every call, not only the hang: flood and spawn
// (which starts a process and waits for its pid file) must answer within
// it, so it is a few seconds, not one a loaded machine can miss.
func TestToolServerFaults(t *testing.T) {
	pids := t.TempDir()
	h := newSmall(t, ollamatest.Config{})
	cfg := `[model]
name = "qwen3.5:9b"
[workflow]
tool_timeout = "3s"
max_tool_calls = 10
[mcp.servers.fixture]
command = "` + fixtureBin + `"
args = ["-piddir", "` + pids + `"]
`
	os.WriteFile(filepath.Join(h.dir, "config.toml"), []byte(cfg), 0o644)
	contract := `# Stage: 01-plan

## Inputs
- Layer 4 (working): idea.md

## Tools
fixture: flood, spawn, hang, crash

## Process
PLAN the parts.

## Outputs
- plan.md -> output/
`
	os.WriteFile(filepath.Join(h.dir, "pipeline/01-plan/CONTEXT.md"), []byte(contract), 0o644)
	seq := []ollamatest.Turn{
		ollamatest.Calls(ollamatest.Call("fixture_flood", map[string]any{"mb": 4})),
		ollamatest.Calls(ollamatest.Call("fixture_spawn", map[string]any{})),
		ollamatest.Calls(ollamatest.Call("fixture_hang", map[string]any{})),
		ollamatest.Calls(ollamatest.Call("fixture_crash", map[string]any{"code": 7})),
		ollamatest.Text("# Plan\n\n## Part A\n- what I could gather"),
	}
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Reply(seq...)
	h.mustRun(workflow.Options{})

	var tools []*report.Event
	for i := range h.events {
		if h.events[i].Kind == report.EventTool {
			tools = append(tools, &h.events[i])
		}
	}
	if len(tools) != 4 {
		t.Fatalf("%d tool events, want 4", len(tools))
	}
	if tools[0].Tool.IsError || tools[1].Tool.IsError {
		t.Errorf("flood and spawn should succeed: %+v / %+v", tools[0].Tool, tools[1].Tool)
	}
	for _, ev := range tools[2:] {
		msg := ev.Tool.Err
		if !ev.Tool.IsError || !strings.Contains(msg, "fixture") {
			t.Errorf("%s: not reported as a tool error naming the server: %+v", ev.Tool.Name, ev.Tool)
		}
	}
	// What the model was told about the hang and the crash.
	last := h.srv.ChatRequests()[len(h.srv.ChatRequests())-1]
	var told []string
	for _, m := range last.ToolResults() {
		told = append(told, m.Content)
	}
	all := strings.Join(told, "\n")
	if !strings.Contains(all, "fixture") || !strings.Contains(strings.ToLower(all), "time") {
		t.Errorf("tool results the model saw:\n%s", all)
	}
	if got := h.read("pipeline/01-plan/output/plan.md"); !strings.Contains(got, "## Part A") {
		t.Errorf("output: %q", got)
	}
	// Every process the server started is gone: the server and the grandchild.
	files, _ := filepath.Glob(filepath.Join(pids, "*.pid"))
	if len(files) < 2 {
		t.Fatalf("expected the server and its grandchild to record pids, got %v", files)
	}
	for _, f := range files {
		pid, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".pid"))
		if alive(pid) {
			t.Errorf("process %d (%s) outlived the run", pid, f)
		}
	}
}

// alive reports whether pid is a running process (a zombie, dead but not
// yet reaped by whoever inherited it, does not count).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
