package tools

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// inputRef is a complete ${input:...} reference.
var inputRef = regexp.MustCompile(`\$\{input:[^}]*\}`)

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "${workspaceFolder}/x", "${env:A}", "${A:-b}", "${input:k}", "${", "${}", "$${A}}", "${:-}"} {
		f.Add(s)
	}
	e := expander{workspace: "/w", home: "/h", lookupEnv: func(k string) (string, bool) { return "v", k == "A" }}
	f.Fuzz(func(t *testing.T, s string) {
		out, issues := e.expand(s)
		if !strings.Contains(s, "${") && (out != s || len(issues) != 0) {
			t.Errorf("expand(%q) = %q, %v: text without variables must pass unchanged", s, out, issues)
		}
		if inputRef.MatchString(out) {
			errored := false
			for _, is := range issues {
				errored = errored || is.severity == SeverityError
			}
			if !errored {
				t.Errorf("expand(%q) kept an ${input:} without an error", s)
			}
		}
	})
}

func FuzzParseJSONServers(f *testing.F) {
	for _, s := range []string{
		`{"servers": {"a": {"command": "x", "args": ["1"], "env": {"K": 1}}}}`,
		`{"mcpServers": {"a": {"url": "http://h/", "headers": {"X": "y"}}}, "inputs": [{}]}`,
		"{\n// c\n\"servers\": {\"a\": {\"type\": \"sse\", \"url\": \"http://h\",},},}",
		`{"servers": [1]}`, `[`, `{"servers": {"a": 1}}`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, problems := parseJSONServers("mcp.json", data, "servers")
		lines := 1 + bytes.Count(data, []byte("\n"))
		for _, p := range problems {
			if p.Line < 0 || p.Line > lines || p.Message == "" {
				t.Errorf("problem %+v outside the %d-line file or empty", p, lines)
			}
		}
		for _, e := range entries {
			if e.server.Line < 1 || e.server.Line > lines || e.server.Source != "mcp.json" {
				t.Errorf("entry %+v has a bad position", e.server)
			}
		}
	})
}
