package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	e := expander{workspace: "/w/proj", home: "/home/u", lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	tests := []struct {
		in, want string
		severity Severity // of the single expected issue, "" for none
	}{
		{"plain", "plain", ""},
		{"${workspaceFolder}/bin", "/w/proj/bin", ""},
		{"${workspaceFolderBasename}", "proj", ""},
		{"${userHome}/.cache", "/home/u/.cache", ""},
		{"a${/}b", "a/b", ""},
		{"${env:A}-${A}", "1-1", ""},
		{"${B:-dflt}", "dflt", ""},
		{"${EMPTY:-dflt}", "dflt", ""},
		{"${A:-dflt}", "1", ""},
		{"${env:B}", "", SeverityWarning},
		{"${B}", "", SeverityWarning},
		{"${input:key}", "${input:key}", SeverityError},
		{"${config:x}", "${config:x}", SeverityError},
		{"${env:bad name}", "${env:bad name}", SeverityError},
		{"open ${A", "open ${A", SeverityWarning},
		{"$A stays", "$A stays", ""},
	}
	for _, tc := range tests {
		got, issues := e.expand(tc.in)
		if got != tc.want {
			t.Errorf("expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
		switch {
		case tc.severity == "" && len(issues) != 0:
			t.Errorf("expand(%q): unexpected issues %v", tc.in, issues)
		case tc.severity != "" && (len(issues) != 1 || issues[0].severity != tc.severity):
			t.Errorf("expand(%q): issues %v, want one %s", tc.in, issues, tc.severity)
		}
	}
}

func TestExposedName(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct{ server, tool, want string }{
		{"search-server", "search", "search-server_search"},
		{"web.tools", "fetch url", "web_tools_fetch_url"},
		{"ü", "a/b", "__a_b"},
	}
	for _, tc := range tests {
		if got := ExposedName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ExposedName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	a, b := ExposedName("s", long+"a"), ExposedName("s", long+"b")
	if len(a) != maxToolName || len(b) != maxToolName || a == b {
		t.Errorf("long names: %q (%d), %q (%d)", a, len(a), b, len(b))
	}
	taken := map[string]bool{"s_a": true, "s_a_2": true}
	if got := uniqueName("s_a", taken); got != "s_a_3" {
		t.Errorf("uniqueName = %q", got)
	}
}

func TestRing(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		writes []string
		want   string
		tail   string // Tail(2, 0)
	}{
		{"fits", 16, []string{"ab\n", "cd\n"}, "ab\ncd\n", "ab\ncd"},
		{"wraps", 8, []string{"one\n", "two\n", "six\n"}, "two\nsix\n", "six"},
		{"one huge write", 4, []string{"0123456789"}, "6789", ""},
		{"many small", 5, []string{"a", "b", "c", "d", "e", "f", "g"}, "cdefg", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRing(tc.size)
			total := 0
			for _, w := range tc.writes {
				grew := r.Grew()
				n, err := r.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				select {
				case <-grew:
				default:
					t.Errorf("Grew not signalled by a write")
				}
				total += len(w)
			}
			if got := string(r.Bytes()); got != tc.want {
				t.Errorf("Bytes = %q, want %q", got, tc.want)
			}
			if r.Total() != int64(total) {
				t.Errorf("Total = %d, want %d", r.Total(), total)
			}
			if tc.tail != "" {
				if got := r.Tail(2, 0); got != tc.tail {
					t.Errorf("Tail = %q, want %q", got, tc.tail)
				}
			}
		})
	}
	r := newRing(64)
	r.Write([]byte("short\n" + strings.Repeat("é", 20) + "\n"))
	if got := r.Tail(5, 7); !utf8.ValidString(got) || !strings.HasSuffix(got, "ééé…") {
		t.Errorf("Tail cut a character: %q", got)
	}
}

func TestCapText(t *testing.T) {
	long := strings.Repeat("é", 500) + "END"
	tests := []struct {
		in      string
		max     int
		cut     bool
		prefix  string
		suffix  string
		contain string
	}{
		{"short", 100, false, "short", "short", ""},
		{long, 200, true, "é", "END", "bytes cut"},
		{long, 10, true, "é", "", ""},
	}
	for _, tc := range tests {
		got, cut := capText(tc.in, tc.max)
		if cut != tc.cut || len(got) > tc.max || !utf8.ValidString(got) {
			t.Errorf("capText(%d bytes, %d) = %d bytes, cut %v, valid %v", len(tc.in), tc.max, len(got), cut, utf8.ValidString(got))
		}
		if !strings.HasPrefix(got, tc.prefix) || !strings.HasSuffix(got, tc.suffix) || !strings.Contains(got, tc.contain) {
			t.Errorf("capText = %q", got)
		}
	}
}

func TestArgSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"query":{"type":"string","description":"what to look for"},
		"max_results":{"type":"integer","minimum":1},
		"mode":{"enum":["fast","deep"]}},
		"required":["query"]}`)
	a := newArgSchema("search", schema)
	if a.compileErr != nil {
		t.Fatal(a.compileErr)
	}
	tests := []struct {
		name string
		args map[string]any
		want []string // empty: valid
	}{
		{"valid", map[string]any{"query": "go", "max_results": 3}, nil},
		{"integer as float", map[string]any{"query": "go", "max_results": 3.0}, nil},
		{"fraction", map[string]any{"query": "go", "max_results": 2.5}, []string{`argument "max_results"`, "integer"}},
		{"below minimum", map[string]any{"query": "go", "max_results": 0}, []string{`argument "max_results"`}},
		{"missing", map[string]any{"mode": "fast"}, []string{"missing property 'query'", "query (string, required): what to look for"}},
		{"enum", map[string]any{"query": "go", "mode": "slow"}, []string{`argument "mode"`, `one of "fast", "deep"`}},
		{"unmarshalable", map[string]any{"query": func() {}}, []string{"invalid arguments"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := a.check("web_search", tc.args)
			if len(tc.want) == 0 {
				if msg != "" {
					t.Errorf("valid arguments refused: %s", msg)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
		})
	}

	refs := []struct {
		name   string
		schema string
	}{
		{"remote ref", `{"type":"object","properties":{"a":{"$ref":"http://127.0.0.1:1/x.json"}}}`},
		{"file ref", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`},
		{"not JSON", `{"type":`},
	}
	for _, tc := range refs {
		a := newArgSchema("t", json.RawMessage(tc.schema))
		if a.compileErr == nil {
			t.Errorf("%s: compiled; outside references must not be loaded", tc.name)
		}
		if msg := a.check("t", map[string]any{"a": 1}); msg != "" {
			t.Errorf("%s: an unusable schema should not block calls: %s", tc.name, msg)
		}
	}
}

func TestNormalizeSchema(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `{"type":"object","properties":{}}`},
		{`null`, `{"type":"object","properties":{}}`},
		{`"oops"`, `{"type":"object","properties":{}}`},
		{`[1]`, `{"type":"object","properties":{}}`},
		{`{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{`{"type":"object","properties":{"z":{},"a":{}}}`, `{"type":"object","properties":{"z":{},"a":{}}}`},
	}
	for _, tc := range tests {
		if got := string(normalizeSchema(json.RawMessage(tc.in))); got != tc.want {
			t.Errorf("normalizeSchema(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
