package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/golden"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestMCPToolSnapshots keeps every tool icm's MCP servers offer (name,
// description, input schema) in testdata/mcp-tools/SERVER.json. Tool
// descriptions and schemas are prompts for small models: a change to them
// must show up as a reviewed diff of these files (go test -run
// TestMCPToolSnapshots -update rewrites them).
func TestMCPToolSnapshots(t *testing.T) {
	root := t.TempDir()
	ws := wstest.Copy(t, "course-research")
	allowed := t.TempDir()
	if err := os.WriteFile(filepath.Join(allowed, "settings.toml"), []byte("[agents]\napprove = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := []struct {
		name string
		args []string
		// config is the person's config folder (ICM_CONFIG_DIR).
		config string
	}{
		// As the shipped workspaces start them (their config.toml).
		{"search", []string{"mcp", "search", "--searxng", "http://localhost:8090"}, ""},
		{"browser", []string{"mcp", "browser", "--no-cache"}, ""},
		{"ingest", []string{"mcp", "ingest", "--root", root}, ""},
		// The workspace server as an agent sees it, and with the
		// approve tool the person's own settings can add.
		{"workspace", []string{"mcp", "workspace", ws}, t.TempDir()},
		{"workspace-approve", []string{"mcp", "workspace", ws}, allowed},
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			if s.config != "" {
				t.Setenv("ICM_CONFIG_DIR", s.config)
			}
			frames := mcpSession(t, s.args, initFrame, initialized, list)
			res, ok := frames[2]["result"].(map[string]any)
			if !ok {
				t.Fatalf("tools/list answered %v", frames[2])
			}
			raw, _ := json.Marshal(res["tools"])
			var tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
				Annotations json.RawMessage `json:"annotations,omitempty"`
			}
			if err := json.Unmarshal(raw, &tools); err != nil || len(tools) == 0 {
				t.Fatalf("tools = %s (%v)", raw, err)
			}
			sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
			got, err := json.MarshalIndent(tools, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "mcp-tools", s.name+".json"), append(got, '\n'))
		})
	}
}
