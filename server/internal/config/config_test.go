package config

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	src := `
[model]
name = "qwen3:4b"
temperature = 0.2
think = false
num_ctx = 8192

[workflow]
gate = "rerun"
parallel = 4
tool_timeout = "45s"
colour = "blue"

[mcp.servers.search]
command = "icm"
args = ["mcp", "search"]
env = { SEARXNG_URL = "http://localhost:8090" }

[mcp.servers.remote]
url = "http://127.0.0.1:9000/mcp"
`
	cfg, err := Parse("config.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.Name != "qwen3:4b" || *cfg.Model.Temperature != 0.2 || *cfg.Model.Think || cfg.Model.NumCtx != 8192 {
		t.Errorf("model = %+v", cfg.Model)
	}
	if cfg.Workflow.Gate != "rerun" || cfg.Workflow.Parallel != 4 || cfg.Workflow.ToolTimeout.Duration != 45*time.Second {
		t.Errorf("workflow = %+v", cfg.Workflow)
	}
	if cfg.Workflow.MaxToolCalls != 24 {
		t.Errorf("an unset key lost its default: max_tool_calls = %d", cfg.Workflow.MaxToolCalls)
	}
	s := cfg.MCP.Servers["search"]
	if s.Command != "icm" || len(s.Args) != 2 || s.Env["SEARXNG_URL"] == "" || s.Source != "config.toml" {
		t.Errorf("search server = %+v", s)
	}
	if cfg.MCP.Servers["remote"].URL == "" {
		t.Error("remote server lost its url")
	}
	if len(cfg.Unknown) != 1 || cfg.Unknown[0] != "workflow.colour" {
		t.Errorf("unknown keys = %v", cfg.Unknown)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"[model]\nname = \n", "config.toml:2:"},
		{"[workflow]\ngate = \"sometimes\"\n", `gate = "sometimes"`},
		{"[workflow]\nparallel = 0\n", "parallel = 0: use a number from 1 to 256"},
		{"[workflow]\ntool_timeout = \"soon\"\n", `write it like "30s"`},
		{"[model]\nprovider = \"magic\"\n", `provider = "magic"`},
		{"[mcp.servers.x]\nargs = [\"a\"]\n", "needs exactly one of command"},
		{"[mcp.servers.x]\ncommand = \"a\"\nurl = \"http://b\"\n", "needs exactly one of command"},
	}
	for _, tt := range tests {
		_, err := Parse("config.toml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) error = %v, want it to mention %q", tt.src, err, tt.want)
		}
	}
}
