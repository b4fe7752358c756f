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
	// remote is the configuration of a client that reaches the server
	// over HTTP at url, naming the token only by where the client reads
	// it from; remoteHow says where it goes (the token is said apart).
	remote    func(url string) (string, error)
	remoteHow func(url, token string) string
	// asksToken: the client asks the person for the token itself, rather
	// than reading it from tokenEnv.
	asksToken bool
}

// bearerFrom is an Authorization header whose token the client reads
// from ref (a variable reference in the client's own syntax).
func bearerFrom(ref string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + ref}
}

// vscodeTokenInput is the id of the input VS Code asks the token with.
const vscodeTokenInput = "icm-mcp-token"

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
		remote: func(url string) (string, error) {
			return jsonConfig("mcpServers", httpEntry{Type: "http", URL: url, Headers: bearerFrom("${" + tokenEnv + "}")})
		},
		remoteHow: func(url, token string) string {
			return "Claude Code: save this as .mcp.json at the project's root (shared with the project: it names the token's variable, " + tokenEnv + ", never the token), or add it for yourself alone with\n  claude mcp add --transport http --scope user " + serverName + " " + url + " --header " + shellLine("Authorization: Bearer "+token, nil) + "\n"
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
		remote: func(url string) (string, error) {
			return fmt.Sprintf("[mcp_servers.%s]\nurl = %s\nbearer_token_env_var = %s\n", serverName, tomlString(url), tomlString(tokenEnv)), nil
		},
		remoteHow: func(string, string) string {
			return "Codex CLI: add this to ~/.codex/config.toml (or .codex/config.toml in a trusted project); Codex reads the token from " + tokenEnv + ".\n"
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
		remote: func(url string) (string, error) {
			return jsonConfig("mcpServers", httpEntry{URL: url, Headers: bearerFrom("${env:" + tokenEnv + "}")})
		},
		remoteHow: func(string, string) string {
			return "Cursor: save this as .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project); Cursor reads the token from " + tokenEnv + ".\n"
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
		remote: func(url string) (string, error) {
			return jsonFile(map[string]any{
				"inputs":  []promptInput{{Type: "promptString", ID: vscodeTokenInput, Description: "The token of icm's workspace server", Password: true}},
				"servers": map[string]any{serverName: httpEntry{Type: "http", URL: url, Headers: bearerFrom("${input:" + vscodeTokenInput + "}")}},
			})
		},
		remoteHow: func(string, string) string {
			return "VS Code: save this as .vscode/mcp.json; VS Code asks for the token once and keeps it in its secret storage.\n"
		},
		asksToken: true,
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
	var client, command, addr string
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
			if addr != "" {
				return printRemote(env, c, command, addr, serve)
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
	cmd.Flags().StringVar(&addr, "http", "", "set the client up to reach a server you start with icm mcp workspace --http ADDR (a loopback address), with the server's token")
	_ = cmd.MarkFlagRequired("client")
	return cmd
}

// printRemote prints a client's configuration for the server over HTTP
// at addr, serving serve (the arguments after icm): the configuration,
// which names the token only by where the client reads it, on standard
// output; where it goes, the server's command and the token itself on
// standard error, for the person alone.
func printRemote(env *Env, c agentClient, command, addr string, serve []string) error {
	if err := loopbackAddr(addr); err != nil {
		return err
	}
	token, file, err := serverToken(env)
	if err != nil {
		return err
	}
	url := "http://" + addr + "/mcp"
	text, err := c.remote(url)
	if err != nil {
		return err
	}
	start := append([]string{serve[0], serve[1], "--http", addr}, serve[2:]...)
	fmt.Fprint(env.Stderr, c.remoteHow(url, token))
	fmt.Fprintf(env.Stderr, "Start the server with\n  %s\nEvery request must carry its token, kept in %s (yours alone; never put it in the project's files):\n  %s\n", shellLine(command, start), file, token)
	if !c.asksToken {
		fmt.Fprintf(env.Stderr, "Set %s to it where the client starts, e.g.\n  export %s=\"$(cat %s)\"\n", tokenEnv, tokenEnv, shellLine(file, nil))
	}
	fmt.Fprint(env.Stdout, text)
	return nil
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

// httpEntry is a server a JSON client file reaches over HTTP.
type httpEntry struct {
	Type    string            `json:"type,omitempty"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// promptInput is a value VS Code asks the person for, a password kept
// in its secret storage.
type promptInput struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	Description string `json:"description"`
	Password    bool   `json:"password"`
}

// jsonConfig is a JSON client file with one server under key.
func jsonConfig(key string, entry any) (string, error) {
	return jsonFile(map[string]any{key: map[string]any{serverName: entry}})
}

// jsonFile is v as a client's JSON file, indented, "&" and "<" as they are.
func jsonFile(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
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
