package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Workspace files read besides config.toml, in precedence order.
const (
	VSCodeFile   = ".vscode/mcp.json"
	PortableFile = ".mcp.json"
)

// Loader reads server configuration. Its fields are the outside world the
// expansion of ${env:...} and ${userHome} depends on, passed in so tests can
// fix them.
type Loader struct {
	// LookupEnv reads an environment variable (os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// Home is the user's home directory, for ${userHome}.
	Home string
}

// LoadServers reads every MCP server the workspace configures: config.toml
// (already parsed into cfg), then .vscode/mcp.json, then .mcp.json. The first
// definition of a name wins; see the package documentation.
func LoadServers(workspaceDir string, cfg config.Config) (Registry, []Problem) {
	home, _ := os.UserHomeDir()
	return Loader{LookupEnv: os.LookupEnv, Home: home}.Load(workspaceDir, cfg)
}

// maxServerFile caps the MCP server files read (.vscode/mcp.json, .mcp.json).
const maxServerFile = 1 << 20

// Load is LoadServers with this loader's environment.
func (l Loader) Load(workspaceDir string, cfg config.Config) (Registry, []Problem) {
	if l.LookupEnv == nil {
		l.LookupEnv = func(string) (string, bool) { return "", false }
	}
	abs, err := filepath.Abs(workspaceDir)
	if err == nil {
		workspaceDir = abs
	}
	exp := expander{workspace: workspaceDir, home: l.Home, lookupEnv: l.LookupEnv}
	sources, problems := readEntries(workspaceDir, cfg)
	reg := Registry{}
	for _, es := range sources {
		for _, e := range es {
			if prev, ok := reg[e.server.Name]; ok {
				problems = append(problems, Problem{File: e.server.Source, Line: e.server.Line, Server: e.server.Name, Severity: SeverityNote,
					Message: fmt.Sprintf("server %q is also defined in %s, which takes precedence; this entry is not used", e.server.Name, prev.Location())})
				continue
			}
			s, ps, ok := e.finish(exp)
			problems = append(problems, ps...)
			if ok {
				reg[s.Name] = s
			}
		}
	}
	sort.SliceStable(problems, func(i, j int) bool {
		if problems[i].File != problems[j].File {
			return problems[i].File < problems[j].File
		}
		return problems[i].Line < problems[j].Line
	})
	return reg, problems
}

// readEntries reads every server entry as written, one list per file in
// precedence order: config.toml, .vscode/mcp.json, .mcp.json.
func readEntries(workspaceDir string, cfg config.Config) ([][]entry, []Problem) {
	var problems []Problem
	var sources [][]entry
	sources = append(sources, tomlEntries(cfg, workspaceDir))
	// The server files are read through the workspace's Root, like every
	// file of a workspace: regular files only, capped, never through a
	// link that leads out.
	root, rerr := workspace.OpenRoot(workspaceDir, workspace.RootOptions{ReadOnly: true, MaxRead: maxServerFile})
	if rerr != nil {
		return sources, problems
	}
	defer root.Close()
	for _, f := range []struct{ rel, key string }{{VSCodeFile, "servers"}, {PortableFile, "mcpServers"}} {
		path := filepath.Join(workspaceDir, filepath.FromSlash(f.rel))
		data, err := root.ReadFile(f.rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, Problem{File: path, Severity: SeverityError, Message: fmt.Sprintf("unable to read: %v", err)})
			continue
		}
		es, ps := parseJSONServers(path, data, f.key)
		sources = append(sources, es)
		problems = append(problems, ps...)
	}
	return sources, problems
}

// Written lists the servers the workspace configures as their files
// write them, in the precedence Load keeps (the first entry of a name
// wins): no ${...} variable is expanded and nothing is read from the
// environment. It is what a workspace would be trusted to start (package
// trust), the same wherever the workspace lies. Transport is derived from
// the written type and url.
func Written(workspaceDir string, cfg config.Config) []Server {
	if abs, err := filepath.Abs(workspaceDir); err == nil {
		workspaceDir = abs
	}
	sources, _ := readEntries(workspaceDir, cfg)
	seen := map[string]bool{}
	var out []Server
	for _, es := range sources {
		for _, e := range es {
			if seen[e.server.Name] {
				continue
			}
			seen[e.server.Name] = true
			s := e.server
			s.Transport = writtenTransport(e.typ, s.URL)
			out = append(out, s)
		}
	}
	return out
}

// writtenTransport is the transport an entry's type and url name, as
// finish decides it (an unknown type reads as what its url suggests).
func writtenTransport(typ, url string) string {
	switch typ {
	case "stdio":
		return TransportStdio
	case "sse":
		return TransportSSE
	case "http", "streamable-http", "streamableHttp", "streamable_http":
		return TransportHTTP
	}
	if url != "" {
		return TransportHTTP
	}
	return TransportStdio
}

// tomlEntries turns config.toml's servers into entries, finding each
// table's line in the file so problems can point at it.
func tomlEntries(cfg config.Config, workspaceDir string) []entry {
	names := make([]string, 0, len(cfg.MCP.Servers))
	for n := range cfg.MCP.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	path := cfg.Path
	if path == "" {
		path = filepath.Join(workspaceDir, config.FileName)
	}
	lines := tomlTableLines(path)
	var out []entry
	for _, n := range names {
		m := cfg.MCP.Servers[n]
		src := m.Source
		if src == "" {
			src = path
		}
		e := entry{server: Server{
			Name: n, Command: m.Command, Args: m.Args, Env: m.Env, URL: m.URL, Headers: m.Headers,
			Source: src, Line: lines[n],
		}}
		e.lines = map[string]int{}
		out = append(out, e)
	}
	return out
}

// tomlTableLines finds the line of each [mcp.servers.NAME] header. The TOML
// decoder does not report positions, and a best-effort line is worth more
// to a person than none.
func tomlTableLines(path string) map[string]int {
	lines := map[string]int{}
	data, err := workspace.ReadFileAt(path, maxServerFile)
	if err != nil {
		return lines
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "[mcp.servers.")
		if !ok {
			continue
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(rest[:end]), `"'`)
		if _, seen := lines[name]; !seen && !strings.Contains(name, ".") {
			lines[name] = n
		}
	}
	return lines
}
