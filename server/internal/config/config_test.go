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

// A misspelt key is not applied, and Meant reads it as the key meant; a
// key set under both spellings is not overridden.
func TestMisspeltKeysAsMeant(t *testing.T) {
	cfg, err := Parse("config.toml", []byte("[model]\ntemprature = 0.2\n\n[workflow]\nparalel = 3\n[test]\nrepeat = 2\nrepaet = 5\n")) //nolint:misspell // the typo is what the test is about
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.Temperature != nil || cfg.Workflow.Parallel != 1 {
		t.Errorf("a misspelt key was applied: %+v %+v", cfg.Model, cfg.Workflow)
	}
	if len(cfg.Misspelt) != 2 || cfg.Misspelt[0].Line != 2 {
		t.Fatalf("misspelt = %+v, want model.temprature (line 2) and workflow.paralel", cfg.Misspelt) //nolint:misspell // the typo is what the test is about
	}
	m := cfg.Meant()
	if m.Model.Temperature == nil || *m.Model.Temperature != 0.2 || m.Workflow.Parallel != 3 || m.Test.Repeat != 2 {
		t.Errorf("meant = %+v %+v %+v", m.Model, m.Workflow, m.Test)
	}
}
