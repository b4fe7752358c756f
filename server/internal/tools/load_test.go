package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// writeFiles creates files under dir from rel path -> content.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func testLoader() Loader {
	env := map[string]string{"SEARX": "http://127.0.0.1:8888", "TOKEN": "s3cret", "EMPTY": ""}
	return Loader{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, Home: "/home/u"}
}

func TestLoadServers(t *testing.T) {
	const vscode = `{
  // servers VS Code runs for this workspace
  "servers": {
    "search": {
      "type": "stdio",
      "command": "icm",
      "args": ["mcp", "search", "--searx", "${env:SEARX}", "--root", "${workspaceFolder}"],
      "env": {"LEVEL": 3, "DROP": null},
    },
    "remote": {"type": "http", "url": "https://mcp.example.test/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
    "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
    "prompted": {"command": "x", "env": {"KEY": "${input:apiKey}"}},
    "shared": {"command": "from-vscode", "env": {"LEVEL": 3, "DROP": null, "ON": true}},
  },
  "inputs": [{"type": "promptString", "id": "apiKey", "password": true}],
}`
	const portable = `{"mcpServers": {
  "shared": {"command": "from-portable"},
  "fs": {"command": "npx", "args": ["-y", "server-fs", "${HOME_DIR:-/tmp}"], "cwd": "${userHome}"},
  "off": {"command": "y", "disabled": true},
  "windsurf": {"serverUrl": "http://127.0.0.1:7/mcp"}
}}`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".vscode/mcp.json": vscode,
		".mcp.json":        portable,
		"config.toml":      "[mcp.servers.search]\ncommand = \"icm\"\nargs = [\"mcp\", \"search\", \"--root\", \"${workspaceFolder}\"]\n",
	})
	cfg, err := workspace.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg, problems := testLoader().Load(dir, cfg)
	// Each server keeps its entry as written, for the permit it starts
	// with: compared here, and apart from what it expands to below.
	written := map[string]*Server{}
	for n, s := range reg {
		written[n], s.Written = s.Written, nil
		reg[n] = s
	}
	if w := written["search"]; w == nil || !reflect.DeepEqual(w.Args, []string{"mcp", "search", "--root", "${workspaceFolder}"}) {
		t.Errorf("search as written: %+v", w)
	}
	if w := written["remote"]; w == nil || w.Headers["Authorization"] != "Bearer ${env:TOKEN}" {
		t.Errorf("remote as written: %+v", w)
	}

	want := Registry{
		"search": {Name: "search", Transport: TransportStdio, Command: "icm", Args: []string{"mcp", "search", "--root", dir},
			Source: filepath.Join(dir, "config.toml"), Line: 1},
		"remote": {Name: "remote", Transport: TransportHTTP, URL: "https://mcp.example.test/mcp",
			Headers: map[string]string{"Authorization": "Bearer s3cret"}, Source: filepath.Join(dir, ".vscode/mcp.json"), Line: 10},
		"legacy": {Name: "legacy", Transport: TransportSSE, URL: "http://127.0.0.1:9/sse", Source: filepath.Join(dir, ".vscode/mcp.json"), Line: 11},
		"shared": {Name: "shared", Transport: TransportStdio, Command: "from-vscode", Env: map[string]string{"LEVEL": "3", "ON": "true"}, Source: filepath.Join(dir, ".vscode/mcp.json"), Line: 13},
		"fs": {Name: "fs", Transport: TransportStdio, Command: "npx", Args: []string{"-y", "server-fs", "/tmp"}, Dir: "/home/u",
			Source: filepath.Join(dir, ".mcp.json"), Line: 3},
		"windsurf": {Name: "windsurf", Transport: TransportHTTP, URL: "http://127.0.0.1:7/mcp", Source: filepath.Join(dir, ".mcp.json"), Line: 5},
	}
	if !reflect.DeepEqual(reg, want) {
		for _, n := range unionNames(reg, want) {
			if !reflect.DeepEqual(reg[n], want[n]) {
				t.Errorf("server %s:\n got %+v\nwant %+v", n, reg[n], want[n])
			}
		}
	}

	wantProblems := []struct {
		file     string
		line     int
		severity Severity
		text     string
	}{
		{".mcp.json", 2, SeverityNote, `"shared" is also defined in ` + filepath.Join(dir, ".vscode/mcp.json") + ":13"},
		{".mcp.json", 4, SeverityNote, "disabled"},
		{".vscode/mcp.json", 4, SeverityNote, `"search" is also defined in ` + filepath.Join(dir, "config.toml") + ":1"},
		{".vscode/mcp.json", 12, SeverityError, "${input:apiKey}"},
		{".vscode/mcp.json", 15, SeverityWarning, `"inputs" are not supported`},
	}
	if len(problems) != len(wantProblems) {
		t.Errorf("%d problems, want %d:\n%s", len(problems), len(wantProblems), problemList(problems))
	}
	for _, w := range wantProblems {
		found := false
		for _, p := range problems {
			if p.File == filepath.Join(dir, w.file) && p.Line == w.line && p.Severity == w.severity && strings.Contains(p.Message, w.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s at %s:%d containing %q; got:\n%s", w.severity, w.file, w.line, w.text, problemList(problems))
		}
	}
}

func TestLoadProblems(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		content  string
		line     int
		severity Severity
		text     string
		servers  []string
	}{
		{"syntax error", ".vscode/mcp.json", "{\n  \"servers\": {\n    \"a\": {\"command\": \"x\"\n  }\n", 5, SeverityError, "not valid JSON", nil},
		{"args not strings", ".mcp.json", "{\"mcpServers\": {\n\"a\": {\"command\": \"x\", \"args\": [\"-v\", {\"x\": 1}]}}}", 2, SeverityError, "args must be an array of strings", nil},
		{"both command and url", ".mcp.json", `{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}`, 1, SeverityError, "both command and url", nil},
		{"neither", ".mcp.json", `{"mcpServers": {"a": {"args": []}}}`, 1, SeverityError, "needs a command", nil},
		{"unknown type", ".vscode/mcp.json", "{\"servers\": {\"a\": {\n\"type\": \"pipe\", \"command\": \"x\"}}}", 2, SeverityError, `type "pipe"`, nil},
		{"type http without url", ".vscode/mcp.json", `{"servers": {"a": {"type": "http", "command": "x"}}}`, 1, SeverityError, "type http needs a url", nil},
		{"unix socket url", ".vscode/mcp.json", `{"servers": {"a": {"type": "http", "url": "unix:///tmp/s.sock"}}}`, 1, SeverityError, "only http and https", nil},
		{"unknown variable", ".mcp.json", `{"mcpServers": {"a": {"command": "${config:x}"}}}`, 1, SeverityError, "${config:x}", nil},
		{"unset variable", ".mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"env\": {\"K\": \"${env:NOPE}\"}}}}", 2, SeverityWarning, "NOPE is not set", []string{"a"}},
		{"unknown field", ".mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n\"alwaysAllow\": []}}}", 2, SeverityWarning, `"alwaysAllow"`, []string{"a"}},
		{"envFile", ".vscode/mcp.json", "{\"servers\": {\"a\": {\"command\": \"x\",\n\"envFile\": \".env\"}}}", 2, SeverityWarning, "envFile", []string{"a"}},
		{"other dialect key", ".vscode/mcp.json", `{"mcpServers": {"a": {"command": "x"}}}`, 1, SeverityWarning, `usually lists servers under "servers"`, []string{"a"}},
		{"duplicate name", ".mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\"},\n\"a\": {\"command\": \"y\"}}}", 2, SeverityWarning, "defined twice", []string{"a"}},
		{"not an object", ".mcp.json", `["a"]`, 1, SeverityError, "must hold a JSON object", nil},
		{"odd name", ".mcp.json", `{"mcpServers": {"my server": {"command": "x"}}}`, 1, SeverityWarning, "letters, digits", []string{"my server"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{tc.file: tc.content})
			reg, problems := testLoader().Load(dir, config.Defaults())
			if got := reg.Names(); strings.Join(got, ",") != strings.Join(tc.servers, ",") {
				t.Errorf("servers = %v, want %v", got, tc.servers)
			}
			for _, p := range problems {
				if p.File == filepath.Join(dir, tc.file) && p.Line == tc.line && p.Severity == tc.severity && strings.Contains(p.Message, tc.text) {
					return
				}
			}
			t.Errorf("no %s at line %d containing %q; got:\n%s", tc.severity, tc.line, tc.text, problemList(problems))
		})
	}
}

func TestLoadNoFiles(t *testing.T) {
	reg, problems := testLoader().Load(t.TempDir(), config.Defaults())
	if len(reg) != 0 || len(problems) != 0 {
		t.Errorf("empty workspace gave %v, %v", reg, problems)
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "a.json", Line: 3, Col: 5, Severity: SeverityError, Message: "bad"}, "a.json:3:5: error: bad"},
		{Problem{File: "a.json", Line: 3, Severity: SeverityWarning, Message: "odd"}, "a.json:3: warning: odd"},
		{Problem{File: "a.json", Severity: SeverityNote, Message: "fyi"}, "a.json: note: fyi"},
	}
	for _, tc := range tests {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestServerKey(t *testing.T) {
	a := Server{Name: "s", Transport: TransportStdio, Command: "x", Args: []string{"1"}, Env: map[string]string{"A": "1", "B": "2"}}
	b := a
	b.Env = map[string]string{"B": "2", "A": "1"}
	b.Source, b.Line = "elsewhere", 9
	c := a
	c.Args = []string{"2"}
	if a.Key() != b.Key() {
		t.Errorf("same configuration, different keys")
	}
	if a.Key() == c.Key() {
		t.Errorf("different args, same key")
	}
}

func unionNames(a, b Registry) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range []Registry{a, b} {
		for n := range r {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

func problemList(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}
