package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestProbeCountsToolDefinitions: the probe lists the stage's servers and
// counts their tool definitions in the first call and the token table; a
// server that cannot start is left out, and the probe says so.
func TestProbeCountsToolDefinitions(t *testing.T) {
	t.Setenv("OLLAMA_MODELS", t.TempDir())
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- config.toml --
[model]
name = "qwen3:8b"

[mcp.servers.fx]
command = "`+fixtureBin+`"

[mcp.servers.gone]
command = "/nonexistent/mcp-server"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

Echo things.

## Tools
fx: echo, add
gone: anything

## Process
Echo the input.

## Outputs
- a.md -> output/
`)
	trusttest.Grant(t, dir)
	out, errOut, code := runICM(t, "probe", "01-a", "-w", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Total int `json:"total"`
		Count struct {
			First struct {
				Tokens int    `json:"tokens"`
				Method string `json:"method"`
			} `json:"first_call"`
			Tools    int      `json:"tool_tokens"`
			ToolDefs int      `json:"tool_definitions"`
			LeftOut  []string `json:"tools_left_out"`
		} `json:"count"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	c := got.Count
	if c.ToolDefs != 2 || c.Tools <= 0 || c.First.Tokens < got.Total+c.Tools || c.First.Method != "estimated" {
		t.Errorf("count %+v, context total %d: want the 2 tool definitions counted on top of the context", c, got.Total)
	}
	if len(c.LeftOut) != 1 || !strings.HasPrefix(c.LeftOut[0], "gone: ") {
		t.Errorf("left out %q, want the server that cannot start", c.LeftOut)
	}

	text, _, code := runICM(t, "probe", "01-a", "-w", dir, "--tokens")
	for _, want := range []string{"tool definitions (2 tools, estimated)", "first call as the server sees it (estimated)", "counted without the tool definitions of gone: "} {
		if code != 0 || !strings.Contains(text, want) {
			t.Errorf("probe --tokens (exit %d) lacks %q:\n%s", code, want, text)
		}
	}
	// Each figure is said once: the table's rows are not repeated below it.
	for _, once := range []string{"first call as the server", "tool definitions ("} {
		if n := strings.Count(text, once); n != 1 {
			t.Errorf("probe --tokens says %q %d times:\n%s", once, n, text)
		}
	}
}
