package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/icm-tool/icm/server/internal/testutil/golden"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestMCPInstallPrintsEachClientsConfig keeps what `icm mcp install`
// prints for each client in testdata/mcp-install/CLIENT.txt (the
// workspace's folder written as /WORKSPACE), and reads each printed
// configuration back in its own format, so what a person saves into the
// client's file parses there.
func TestMCPInstallPrintsEachClientsConfig(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "my courses")
	if err := os.Rename(wstest.Copy(t, "course-research"), dir); err != nil {
		t.Fatal(err)
	}
	for _, client := range clientNames() {
		t.Run(client, func(t *testing.T) {
			out, errOut, code := runAsUser(t, parent, nil, "mcp", "install", "--client", client, "my courses")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, filepath.Join("testdata", "mcp-install", client+".txt"),
				[]byte(strings.ReplaceAll("# stderr\n"+errOut+"# stdout\n"+out, dir, "/WORKSPACE")))
			var command string
			var args []string
			switch client {
			case "codex":
				var v struct {
					Servers map[string]struct {
						Command string
						Args    []string
					} `toml:"mcp_servers"`
				}
				if _, err := toml.Decode(out, &v); err != nil {
					t.Fatalf("not TOML: %v", err)
				}
				command, args = v.Servers["icm"].Command, v.Servers["icm"].Args
			default:
				var v map[string]map[string]struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
				}
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatalf("not JSON: %v", err)
				}
				key := "mcpServers"
				if client == "vscode" {
					key = "servers"
				}
				command, args = v[key]["icm"].Command, v[key]["icm"].Args
			}
			if command != "icm" || strings.Join(args, "|") != "mcp|workspace|"+dir {
				t.Errorf("the entry starts %q %q", command, args)
			}
		})
	}
	if _, errOut, code := runAsUser(t, parent, nil, "mcp", "install", "--client", "emacs", "my courses"); code == 0 || !strings.Contains(errOut, "claude-code, codex, cursor, vscode") {
		t.Errorf("an unknown client: exit %d, %s", code, errOut)
	}
}
