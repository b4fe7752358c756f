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
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
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

// TestMCPInstallOverHTTP: with --http, each client's configuration
// reaches the server at its URL and names the token only by the
// variable (or, in VS Code, the prompt) it is read from: the token
// itself goes to standard error for the person, never into what is
// saved in the project. Without --http no token is made or printed.
func TestMCPInstallOverHTTP(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "my courses")
	if err := os.Rename(wstest.Copy(t, "course-research"), dir); err != nil {
		t.Fatal(err)
	}
	cfg := trusttest.ConfigDir(t)
	for _, client := range clientNames() {
		if _, errOut, _ := runAsUser(t, parent, nil, "mcp", "install", "--client", client, "my courses"); strings.Contains(errOut, "token") {
			t.Errorf("%s over stdio mentions a token: %s", client, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg, "mcp-token")); err == nil {
		t.Fatal("a setup over stdio made a token")
	}
	for _, client := range clientNames() {
		t.Run(client, func(t *testing.T) {
			out, errOut, code := runAsUser(t, parent, nil, "mcp", "install", "--client", client, "--http", "127.0.0.1:8765", "my courses")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			token := workspaceToken(t, cfg)
			if strings.Contains(out, token) {
				t.Fatalf("the token is in the configuration a project saves:\n%s", out)
			}
			if !strings.Contains(errOut, token) || !strings.Contains(errOut, "icm mcp workspace --http 127.0.0.1:8765 '"+dir+"'") {
				t.Errorf("standard error does not give the token and the server's command:\n%s", errOut)
			}
			golden.Check(t, filepath.Join("testdata", "mcp-install", client+"-http.txt"),
				[]byte(strings.NewReplacer(dir, "/WORKSPACE", token, "TOKEN", cfg, "/CONFIG").Replace("# stderr\n"+errOut+"# stdout\n"+out)))
			var url, auth string
			switch client {
			case "codex":
				var v struct {
					Servers map[string]struct {
						URL      string `toml:"url"`
						TokenEnv string `toml:"bearer_token_env_var"`
					} `toml:"mcp_servers"`
				}
				if _, err := toml.Decode(out, &v); err != nil {
					t.Fatalf("not TOML: %v", err)
				}
				url, auth = v.Servers["icm"].URL, v.Servers["icm"].TokenEnv
			default:
				var v map[string]json.RawMessage
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatalf("not JSON: %v", err)
				}
				key := "mcpServers"
				if client == "vscode" {
					key = "servers"
				}
				var servers map[string]struct {
					URL     string            `json:"url"`
					Headers map[string]string `json:"headers"`
				}
				if err := json.Unmarshal(v[key], &servers); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				url, auth = servers["icm"].URL, servers["icm"].Headers["Authorization"]
			}
			if url != "http://127.0.0.1:8765/mcp" || !strings.Contains(auth, "ICM_MCP_TOKEN") && !strings.Contains(auth, "${input:") {
				t.Errorf("the entry reaches %q with %q", url, auth)
			}
		})
	}
	if _, errOut, code := runAsUser(t, parent, nil, "mcp", "install", "--client", "codex", "--http", "0.0.0.0:8765", "my courses"); code == 0 || !strings.Contains(errOut, "loopback") {
		t.Errorf("--http on every address: exit %d, %s", code, errOut)
	}
}
