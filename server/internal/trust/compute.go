package trust

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Options are what Of reads besides the workspace's files.
type Options struct {
	// Extra are parts named outside the workspace's files that still
	// come from the workspace: an editor's workspace-scope settings.
	Extra []Part
}

// Of lists what ws would be allowed: every tool server command with its
// arguments and environment (config.toml [mcp.servers], .vscode/mcp.json,
// .mcp.json, in the precedence icm reads them), every address icm or a
// tool server would contact (the model's base_url and [[model.servers]],
// HTTP tool servers, addresses in a server's arguments and environment),
// every environment variable read for a key (api_key_env, ${env:NAME} in
// a server entry) with where it goes, every model name on a registry
// other than Ollama's own, config.toml asking that the stages' models
// read the whole workspace, every Script stage, `run:` Verify check and
// `run:` expectation of a stage test case; each command with its pins
// (the files it runs, by their content). Values are as written, so a
// copy of the workspace elsewhere names the same parts. Nothing is read
// from the environment and nothing is started.
func Of(ws *workspace.Workspace, opts Options) Parts {
	l := &lister{ws: ws, pins: newPinner(ws)}
	var ps Parts
	for _, s := range sources {
		ps = append(ps, s.parts(l)...)
	}
	ps = append(ps, opts.Extra...)
	return ps.sorted()
}

// modelParts are the model servers config.toml names and the key
// variables sent to them. Only what a client would use is listed: with
// [[model.servers]], base_url is not.
func modelParts(cfg config.Config) Parts {
	if cfg.Path == "" {
		return nil
	}

	m := cfg.Model
	var ps Parts
	key := func(where, name, to string) {
		if name = strings.TrimSpace(name); name != "" {
			ps = append(ps, Part{Kind: Key, Where: where, Value: name + ", sent to " + to})
		}
	}
	if len(m.Servers) == 0 {
		to := "the model server in force (the editor's setting, OLLAMA_HOST or Ollama's default)"
		if b := serverValue(m.BaseURL, nil); b != "" {
			ps = append(ps, Part{Kind: Server, Where: "config.toml [model] base_url", Value: b})
			to = b
		}
		key("config.toml [model] api_key_env", m.APIKeyEnv, to)
		return ps
	}
	for i, s := range m.Servers {
		where := fmt.Sprintf("config.toml [[model.servers]] #%d", i+1)
		u := serverValue(s.URL, nil)
		ps = append(ps, Part{Kind: Server, Where: where + " url", Value: u})
		name := s.APIKeyEnv
		if name == "" {
			name = m.APIKeyEnv
		}
		key(where+" api_key_env", name, u)
	}
	return ps
}

// readParts is config.toml asking that the stages' models may read the
// whole workspace.
func readParts(cfg config.Config) Parts {
	if cfg.Path == "" || !cfg.Reads.Workspace {
		return nil
	}
	return Parts{{Kind: ReadsWorkspace, Where: "config.toml [reads] workspace", Value: ReadsValue}}
}

// serverParts are one tool server entry's command or address, the
// addresses its arguments and environment name, and the variables its
// ${...} references read.
func (l *lister) serverParts(s tools.Server) Parts {
	where := entryWhere(l.ws.Root, s)
	var ps Parts
	var target string
	switch s.Transport {
	case tools.TransportHTTP, tools.TransportSSE:
		ps = append(ps, Part{Kind: Server, Where: where, Value: serverValue(s.URL, sortedKeys(s.Headers))})
		target = "sent to " + s.URL
	default:
		ps = append(ps, Part{Kind: Command, Where: where, Value: commandLine(s), Pins: l.pins.argv(l.serverDir(s), append([]string{s.Command}, s.Args...), true)})
		target = fmt.Sprintf("passed to tool server %q", s.Name)
		for _, a := range s.Args {
			for _, u := range addresses(a) {
				ps = append(ps, Part{Kind: Server, Where: where + " args", Value: u})
			}
		}
		for _, k := range sortedKeys(s.Env) {
			for _, u := range addresses(s.Env[k]) {
				ps = append(ps, Part{Kind: Server, Where: where + " env " + k, Value: u})
			}
		}
	}
	written := append([]string{s.Command, s.URL, s.Dir}, s.Args...)
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for _, k := range sortedKeys(m) {
			written = append(written, m[k])
		}
	}
	for _, name := range envRefs(written) {
		ps = append(ps, Part{Kind: Key, Where: where, Value: name + ", " + target})
	}
	return ps
}

// serverValue is the value of a server's part: its address as written
// (spaces around it aside), with the names of the headers an HTTP tool
// server's entry sends (sorted).
func serverValue(addr string, headers []string) string {
	v := strings.TrimSpace(addr)
	if len(headers) == 0 {
		return v
	}
	return v + " (headers " + strings.Join(headers, ", ") + ")"
}

// entryWhere names a server entry's place: "config.toml
// [mcp.servers.NAME]", ".vscode/mcp.json servers.NAME".
func entryWhere(root string, s tools.Server) string {
	file := filepath.ToSlash(s.Source)
	if rel, err := filepath.Rel(root, s.Source); err == nil && !strings.HasPrefix(rel, "..") {
		file = filepath.ToSlash(rel)
	}
	switch file {
	case config.FileName:
		return fmt.Sprintf("%s [mcp.servers.%s]", file, s.Name)
	case tools.VSCodeFile:
		return fmt.Sprintf("%s servers.%s", file, s.Name)
	}
	return fmt.Sprintf("%s mcpServers.%s", file, s.Name)
}

// commandLine is a stdio entry as a shell would read it: its variables,
// its command and arguments quoted, and its folder.
func commandLine(s tools.Server) string {
	var words []string
	for _, k := range sortedKeys(s.Env) {
		words = append(words, k+"="+quote(s.Env[k]))
	}
	words = append(words, quote(s.Command))
	for _, a := range s.Args {
		words = append(words, quote(a))
	}
	line := strings.Join(words, " ")
	if s.Dir != "" {
		line += " (in " + s.Dir + ")"
	}
	return line
}

// serverDir is the folder a tool server starts in: its cwd, else the
// workspace.
func (l *lister) serverDir(s tools.Server) string {
	dir := strings.ReplaceAll(s.Dir, "${workspaceFolder}", l.ws.Root)
	switch {
	case dir == "":
		return l.ws.Root
	case !filepath.IsAbs(dir):
		return filepath.Join(l.ws.Root, dir)
	}
	return dir
}

// contractParts are the stages' Script commands, `run:` checks and model
// names on other registries, read from the contracts on disk (what a run
// would run).
func contractParts(l *lister) Parts {
	ws := l.ws
	var ps Parts
	for _, st := range ws.Stages {
		src, err := ws.Disk.ReadFile(st.Contract)
		if err != nil {
			continue // an unreadable contract cannot run either
		}
		if !namesAny(src, "script", "run:") && !modelHeading(src) {
			continue // no ## Script, no run: check, no ## Model: nothing to parse for
		}
		// Parsed as a run parses it: [vars] filled, optional blocks applied.
		c := contract.ParseWith(st.Contract, src, contract.Options{Vars: ws.Vars})
		if c.Script != nil && strings.TrimSpace(c.Script.Command) != "" {
			ps = append(ps, Part{Kind: Script, Where: st.ContractRel() + " ## Script", Value: c.Script.Command, Pins: l.pins.shell(st.Dir, c.Script.Command)})
		}
		for _, v := range c.Verify {
			if v.Kind == contract.CheckRun && strings.TrimSpace(v.Arg) != "" {
				ps = append(ps, Part{Kind: Check, Where: st.ContractRel() + " ## Verify", Value: v.Arg, Pins: l.pins.shell(st.Dir, v.Arg)})
			}
		}
		if c.Model != nil {
			ps = append(ps, pulls(st.ContractRel()+" ## Model", c.Model.Models...)...)
		}
	}
	return ps
}

// envRef matches the ways a server entry reads the environment:
// ${env:NAME}, ${NAME} and ${NAME:-default} (tools' expander).
var envRef = regexp.MustCompile(`\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}`)

// envRefs lists the environment variables the strings read, sorted,
// once each.
func envRefs(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		for _, m := range envRef.FindAllStringSubmatch(s, -1) {
			name := m[1]
			switch name {
			case "workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator":
				continue // icm's own values, not the environment
			}
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// addresses finds the http(s) URLs in one argument or value ("URL",
// "--flag=URL").
func addresses(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '=' || r == ' ' || r == ',' || r == '\t' }) {
		u, err := url.Parse(w)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		out = append(out, w)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// quote quotes s for a POSIX shell when it needs it.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,${}", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
