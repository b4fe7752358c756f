package tools

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"github.com/tailscale/hujson"
)

// parseJSONServers reads a .vscode/mcp.json or .mcp.json file. Both are
// JSON with comments and trailing commas (VS Code writes them that way),
// parsed with hujson so every problem can carry a line. wantKey is the
// file's usual top-level key ("servers" or "mcpServers"); the other is
// accepted with a warning, since people copy between the two.
func parseJSONServers(path string, data []byte, wantKey string) ([]entry, []Problem) {
	var problems []Problem
	at := func(off int, sev Severity, server, format string, args ...any) {
		line, col := lineCol(data, off)
		problems = append(problems, Problem{File: path, Line: line, Col: col, Server: server, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	root, err := hujson.Parse(data)
	if err != nil {
		line, col := parseErrorPos(err)
		return nil, []Problem{{File: path, Line: line, Col: col, Severity: SeverityError,
			Message: fmt.Sprintf("not valid JSON, so no server in it is used: %v", err)}}
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		at(root.StartOffset, SeverityError, "", "the file must hold a JSON object with a %q member", wantKey)
		return nil, problems
	}
	var entries []entry
	seen := map[string]int{}
	for _, m := range obj.Members {
		key, _ := stringValue(m.Name)
		switch key {
		case "servers", "mcpServers":
			if key != wantKey {
				at(m.Name.StartOffset, SeverityWarning, "", "this file usually lists servers under %q; reading %q anyway", wantKey, key)
			}
			servers, ok := m.Value.Value.(*hujson.Object)
			if !ok {
				at(m.Value.StartOffset, SeverityError, "", "%q must be an object of server name -> settings", key)
				continue
			}
			for _, sm := range servers.Members {
				name, _ := stringValue(sm.Name)
				if first, dup := seen[name]; dup {
					at(sm.Name.StartOffset, SeverityWarning, name, "server %q is defined twice in this file (first on line %d); the first is used", name, first)
					continue
				}
				line, _ := lineCol(data, sm.Name.StartOffset)
				seen[name] = line
				e, ps := parseServerEntry(path, data, name, line, sm.Value)
				problems = append(problems, ps...)
				if e != nil {
					entries = append(entries, *e)
				}
			}
		case "inputs":
			if arr, ok := m.Value.Value.(*hujson.Array); ok && len(arr.Elements) == 0 {
				continue
			}
			at(m.Name.StartOffset, SeverityWarning, "", "\"inputs\" are not supported: icm cannot prompt for values, so servers that use ${input:...} are left out")
		default:
			at(m.Name.StartOffset, SeverityWarning, "", "unknown top-level key %q ignored", key)
		}
	}
	return entries, problems
}

// parseServerEntry reads one server's settings object. It returns nil when
// the entry is unusable or disabled.
func parseServerEntry(path string, data []byte, name string, line int, v hujson.Value) (*entry, []Problem) {
	var problems []Problem
	at := func(off int, sev Severity, format string, args ...any) {
		l, c := lineCol(data, off)
		problems = append(problems, Problem{File: path, Line: l, Col: c, Server: name, Severity: sev,
			Message: fmt.Sprintf("server %q: ", name) + fmt.Sprintf(format, args...)})
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		at(v.StartOffset, SeverityError, "settings must be an object")
		return nil, problems
	}
	e := &entry{server: Server{Name: name, Source: path, Line: line}, lines: map[string]int{}}
	failed := false
	str := func(m hujson.ObjectMember, field string) string {
		s, ok := stringValue(m.Value)
		if !ok {
			at(m.Value.StartOffset, SeverityError, "%s must be a string", field)
			failed = true
		}
		return s
	}
	for _, m := range obj.Members {
		key, _ := stringValue(m.Name)
		fieldLine, _ := lineCol(data, m.Name.StartOffset)
		field := key
		switch key {
		case "type":
			e.typ = str(m, key)
		case "command":
			e.server.Command = str(m, key)
		case "url", "serverUrl", "httpUrl":
			field = "url"
			e.server.URL = str(m, key)
		case "cwd":
			e.server.Dir = str(m, key)
		case "args":
			args, ok := stringList(m.Value)
			if !ok {
				at(m.Value.StartOffset, SeverityError, "args must be an array of strings")
				failed = true
			}
			e.server.Args = args
		case "env", "headers":
			kv, bad := stringMap(m.Value)
			for _, off := range bad {
				at(off, SeverityError, "%s values must be strings", key)
				failed = true
			}
			if key == "env" {
				e.server.Env = kv
			} else {
				e.server.Headers = kv
			}
		case "disabled":
			if lit, ok := m.Value.Value.(hujson.Literal); ok && lit.Bool() {
				at(m.Name.StartOffset, SeverityNote, "disabled, so not used")
				return nil, problems
			}
		case "envFile":
			at(m.Name.StartOffset, SeverityWarning, "envFile is not supported: put the variables under \"env\"")
		default:
			at(m.Name.StartOffset, SeverityWarning, "field %q is not used by icm; ignored", key)
		}
		e.lines[field] = fieldLine
	}
	if failed {
		return nil, problems
	}
	return e, problems
}

// stringValue returns a JSON string's text.
func stringValue(v hujson.Value) (string, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}

// scalarText returns a string, number or boolean as text (VS Code accepts
// numbers in env); ok is false for anything else. null is reported as
// (text "", ok true, null true) so the caller can drop the key.
func scalarText(v hujson.Value) (text string, null, ok bool) {
	lit, isLit := v.Value.(hujson.Literal)
	if !isLit {
		return "", false, false
	}
	switch lit.Kind() {
	case '"':
		return lit.String(), false, true
	case '0', 't', 'f':
		return string(lit), false, true
	case 'n':
		return "", true, true
	}
	return "", false, false
}

func stringList(v hujson.Value) ([]string, bool) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr.Elements))
	for _, el := range arr.Elements {
		s, null, ok := scalarText(el)
		if !ok || null {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// stringMap reads an object of scalars; bad lists the offsets of values
// that are not scalars. null values are dropped (VS Code's way to unset).
func stringMap(v hujson.Value) (map[string]string, []int) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, []int{v.StartOffset}
	}
	out := map[string]string{}
	var bad []int
	for _, m := range obj.Members {
		k, _ := stringValue(m.Name)
		s, null, ok := scalarText(m.Value)
		switch {
		case !ok:
			bad = append(bad, m.Value.StartOffset)
		case !null:
			out[k] = s
		}
	}
	return out, bad
}

// lineCol converts a byte offset to a 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := 1 + off - (bytes.LastIndexByte(data[:off], '\n') + 1)
	return line, col
}

var hujsonPos = regexp.MustCompile(`line (\d+), column (\d+)`)

// parseErrorPos takes the position out of a hujson error ("hujson: line 3,
// column 5: ..."); the library reports it only in the text.
func parseErrorPos(err error) (int, int) {
	m := hujsonPos.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, 0
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	return line, col
}
