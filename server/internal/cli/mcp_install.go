package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fault"
)

// agentClient is one agent `icm mcp install` prints a setup for.
type agentClient struct {
	// title names the client for a person.
	title string
	// config is the configuration file's text (stdout); how says where it
	// goes and the client's own command, if it has one (stderr).
	config func(command string, args []string) (string, error)
	how    func(command string, args []string) string
}

// serverName is the entry's name in every client's configuration.
const serverName = "icm"

var agentClients = map[string]agentClient{
	"claude-code": {
		title: "Claude Code",
		config: func(c string, a []string) (string, error) {
			return jsonConfig("mcpServers", stdioEntry{Command: c, Args: a})
		},
		how: func(c string, a []string) string {
			return "Claude Code: save this as .mcp.json at the project's root (shared with the project), or add it for yourself with\n  claude mcp add --transport stdio " + serverName + " -- " + shellLine(c, a) + "\n"
		},
	},
	"codex": {
		title: "Codex CLI",
		config: func(c string, a []string) (string, error) {
			q := make([]string, len(a))
			for i, s := range a {
				q[i] = tomlString(s)
			}
			return fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [%s]\n", serverName, tomlString(c), strings.Join(q, ", ")), nil
		},
		how: func(c string, a []string) string {
			return "Codex CLI: add this to ~/.codex/config.toml (or .codex/config.toml in a trusted project), or run\n  codex mcp add " + serverName + " -- " + shellLine(c, a) + "\n"
		},
	},
	"cursor": {
		title: "Cursor",
		config: func(c string, a []string) (string, error) {
			return jsonConfig("mcpServers", stdioEntry{Command: c, Args: a})
		},
		how: func(string, []string) string {
			return "Cursor: save this as .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project).\n"
		},
	},
	"vscode": {
		title: "VS Code",
		config: func(c string, a []string) (string, error) {
			return jsonConfig("servers", stdioEntry{Type: "stdio", Command: c, Args: a})
		},
		how: func(string, []string) string {
			return "VS Code: the icm extension registers this server for the open workspace by itself. Without it, save this as .vscode/mcp.json.\n"
		},
	},
}

// clientNames lists the clients, sorted.
func clientNames() []string {
	names := make([]string, 0, len(agentClients))
	for n := range agentClients {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// newMCPInstallCmd is `icm mcp install`: a client's configuration for
// the workspace MCP server.
func newMCPInstallCmd(env *Env, g *globalFlags) *cobra.Command {
	var client, command string
	cmd := &cobra.Command{
		Use:   "install --client NAME [FOLDER...]",
		Short: "Print a coding agent's configuration for icm's workspace server",
		Long: `Print the configuration that makes a coding agent start icm mcp workspace for
FOLDER (a workspace, or a folder of them; default: the workspace around the
current folder, or -w). The configuration goes to standard output, so it can
be saved straight into the client's file; where it goes, and the client's own
command when it has one, go to standard error. Nothing is written.

Clients: ` + strings.Join(clientNames(), ", ") + `.`,
		Example: "  icm mcp install --client claude-code\n  icm mcp install --client cursor workspaces/course-research > .cursor/mcp.json\n  icm mcp install --client codex --command /usr/local/bin/icm",
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ok := agentClients[client]
			if !ok {
				return fault.InvalidRequest(fmt.Sprintf("--client %q: icm knows %s", client, strings.Join(clientNames(), ", ")),
					"name one of the clients icm knows")
			}
			roots, err := servedRoots(env, g, args)
			if err != nil {
				return err
			}
			serve := []string{"mcp", "workspace"}
			if len(args) == 0 {
				serve = append(serve, roots...)
			} else {
				for _, a := range args {
					serve = append(serve, absFrom(env, a))
				}
			}
			text, err := c.config(command, serve)
			if err != nil {
				return err
			}
			fmt.Fprint(env.Stderr, c.how(command, serve))
			fmt.Fprint(env.Stdout, text)
			return nil
		},
	}
	cmd.Flags().StringVar(&client, "client", "", "the coding agent: "+strings.Join(clientNames(), ", "))
	cmd.Flags().StringVar(&command, "command", "icm", "the icm the client starts (a full path when icm is not on the client's PATH)")
	_ = cmd.MarkFlagRequired("client")
	return cmd
}

// absFrom makes a folder argument absolute from the current folder.
func absFrom(env *Env, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	cwd, err := env.Getwd()
	if err != nil {
		return p
	}
	return filepath.Join(cwd, p)
}

// stdioEntry is a server a JSON client file starts as a command, its
// fields in the order people write them.
type stdioEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// jsonConfig is a JSON client file with one server under key.
func jsonConfig(key string, entry stdioEntry) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{key: map[string]any{serverName: entry}}); err != nil {
		return "", fmt.Errorf("unable to write the configuration: %w", err)
	}
	return b.String(), nil
}

// tomlString is s as a TOML basic string: JSON's escapes are TOML's.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// shellLine is a command line a POSIX shell reads back as c and a.
func shellLine(c string, a []string) string {
	words := append([]string{c}, a...)
	for i, w := range words {
		if w == "" || !plainWord.MatchString(w) {
			words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)
