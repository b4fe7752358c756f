package config

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Edit is one change of config text: the bytes of Span replaced by Text.
type Edit struct {
	Span Span
	Text string
	// Line is the 1-based line of the key edited or added.
	Line int
}

// Apply returns data with the edit made.
func (e Edit) Apply(data []byte) []byte {
	out := make([]byte, 0, len(data)-(e.Span.End-e.Span.Start)+len(e.Text))
	out = append(out, data[:e.Span.Start]...)
	out = append(out, e.Text...)
	return append(out, data[e.Span.End:]...)
}

// EditError is an edit SetValue will not make, with where and why.
type EditError struct {
	// Line is the 1-based line the problem is on, 0 when none.
	Line int
	Msg  string
}

func (e *EditError) Error() string { return e.Msg }

// Fault is an edit of config.toml icm will not make; a person can.
func (e *EditError) Fault() *fault.Error {
	return fault.ConfigInvalid(e.Msg, "edit config.toml by hand", "")
}

// ValueOf is the value of key in table (a dotted path, "" for the top
// level) as the TOML parser reads data, and whether data sets it.
func ValueOf(data []byte, table, key string) (any, bool) {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return nil, false
	}
	cur := any(m)
	for _, part := range pathOf(table, key) {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = t[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// SetValue is the edit that makes key of table read value (a string, a
// bool, an integer or a float) and leaves everything else as it was: a
// key already there keeps its line, its comment and its kind of quotes;
// a new key goes at the end of its table, a new table at the end of the
// file. It works on the lines Entries places, and checks its work with
// the TOML parser: when the file does not read, or the key is written
// where a line edit cannot reach (an inline table, a value over several
// lines, an array of tables), or the edited file would read differently
// anywhere but that key, it is an *EditError and nothing is edited.
func SetValue(data []byte, table, key string, value any) (Edit, error) {
	value, err := tomlValue(value)
	if err != nil {
		return Edit{}, err
	}
	name := keyName(table, key)
	var before map[string]any
	if _, err := toml.Decode(string(data), &before); err != nil {
		return Edit{}, &EditError{Line: parseLine(err), Msg: fmt.Sprintf("config.toml does not read as TOML (%v), so %s is not edited", oneLine(err), name)}
	}
	e, err := placeValue(data, table, key, value)
	if err != nil {
		return Edit{}, err
	}
	var after map[string]any
	_, err = toml.Decode(string(e.Apply(data)), &after)
	if err == nil && setIn(before, pathOf(table, key), value) && reflect.DeepEqual(before, after) {
		return e, nil
	}
	line := e.Line
	if x, ok := writtenAbove(data, pathOf(table, key)); ok {
		line = x.Line
	}
	return Edit{}, &EditError{Line: line, Msg: fmt.Sprintf("%s cannot be edited on its own line in config.toml (it is written in an inline table, over several lines or by dotted keys)", name)}
}

// writtenAbove finds the key that holds path's table as a value (an
// inline table, "model = {...}"), for an edit that could not be made.
func writtenAbove(data []byte, path []string) (Entry, bool) {
	for _, x := range Entries(data) {
		for i := 1; i < len(path); i++ {
			if !x.Header && x.Path == strings.Join(path[:i], ".") {
				return x, true
			}
		}
	}
	return Entry{}, false
}

// placeValue finds where key's value goes: over its old value, or as a
// new line in its table.
func placeValue(data []byte, table, key string, value any) (Edit, error) {
	path := strings.Join(pathOf(table, key), ".")
	var found []Entry
	header := -1 // the table's header among entries
	entries := Entries(data)
	for i, x := range entries {
		switch {
		case x.Header && x.Table == table:
			if bytes.HasPrefix(bytes.TrimSpace(data[lineStart(data, x.Key.Start):x.Key.Start]), []byte("[[")) {
				return Edit{}, &EditError{Line: x.Line, Msg: fmt.Sprintf("[%s] is an array of tables in config.toml: say which one by editing it by hand", table)}
			}
			header = i
		case !x.Header && x.Path == path:
			found = append(found, x)
		}
	}
	switch {
	case len(found) > 1:
		return Edit{}, &EditError{Line: found[1].Line, Msg: fmt.Sprintf("%s is written %d times in config.toml (lines %d and %d)", keyName(table, key), len(found), found[0].Line, found[1].Line)}
	case len(found) == 1:
		x := found[0]
		old := string(data[x.Value.Start:x.Value.End])
		return Edit{Span: x.Value, Text: valueText(value, old), Line: x.Line}, nil
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	line := tomlKey(key) + " = " + valueText(value, "") + nl
	if header < 0 && table != "" {
		// A new table, at the end of the file after a blank line.
		at := len(bytes.TrimRight(data, " \t\r\n"))
		text, keyLine := "["+tomlTable(table)+"]"+nl+line, 2
		if at > 0 {
			// The last line's end, a blank line, the header, the key.
			text, keyLine = nl+nl+text, lineAt(data, at)+3
		}
		return Edit{Span: Span{at, len(data)}, Text: text, Line: keyLine}, nil
	}
	// The end of the table: before the next header (and the comments
	// and blank lines right above it), or the end of the file.
	next := len(data)
	for _, x := range entries[header+1:] {
		if x.Header {
			next = lineStart(data, x.Key.Start)
			break
		}
	}
	at := tableEnd(data, next)
	text := line
	if at > 0 && data[at-1] != '\n' {
		text = nl + line
	}
	return Edit{Span: Span{at, at}, Text: text, Line: lineAt(data, at) + boolInt(at > 0 && data[at-1] != '\n')}, nil
}

// tableEnd backs up from next (the start of the next table's header
// line, or the end of the file) over the comments that head that table
// and the blank lines before them, to just after the last line of the
// table before.
func tableEnd(data []byte, next int) int {
	at := next
	comments := next < len(data) // at the end of the file, a comment is the table's own
	for at > 0 {
		start := lineStart(data, at-1)
		text := strings.TrimSpace(string(data[start:at]))
		switch {
		case text == "":
			comments = false
		case comments && strings.HasPrefix(text, "#"):
		default:
			return at
		}
		at = start
	}
	return at
}

// lineStart is the offset of the start of the line holding off.
func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

// lineAt is the 1-based line of offset off.
func lineAt(data []byte, off int) int { return bytes.Count(data[:off], []byte("\n")) + 1 }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tomlValue checks a value SetValue writes: a JSON number that is whole
// is an integer, as TOML reads one back.
func tomlValue(v any) (any, error) {
	switch x := v.(type) {
	case string, bool, int64:
		return x, nil
	case int:
		return int64(x), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, &EditError{Msg: fmt.Sprintf("%v is not a number config.toml can hold", x)}
		}
		return x, nil
	}
	return nil, &EditError{Msg: fmt.Sprintf("a config.toml value is a string, a number or true/false, not %T", v)}
}

// valueText writes value as TOML; a string replacing old keeps old's
// literal quotes when it can be written in them.
func valueText(v any, old string) string {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(old, "'") && !strings.HasPrefix(old, "'''") && literalOK(x) {
			return "'" + x + "'"
		}
		return Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	}
	return ""
}

// literalOK reports whether s can be written as a TOML literal string.
func literalOK(s string) bool {
	for _, r := range s {
		if r == '\'' || r != '\t' && unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// Quote writes s as a TOML basic string.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKey is one key as TOML writes it: bare when it can be, else quoted.
func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return Quote(k)
}

// tomlTable is a dotted table name as a header writes it.
func tomlTable(table string) string {
	parts := strings.Split(table, ".")
	for i, p := range parts {
		parts[i] = tomlKey(p)
	}
	return strings.Join(parts, ".")
}

// pathOf is the parts of key's path; the table is dotted as Entries
// writes paths.
func pathOf(table, key string) []string {
	if table == "" {
		return []string{key}
	}
	return append(strings.Split(table, "."), key)
}

// keyName names a key for a person: "[model] name".
func keyName(table, key string) string {
	if table == "" {
		return key
	}
	return "[" + table + "] " + key
}

// setIn sets path in m to v, making the tables on the way; false when a
// part of the path is not a table.
func setIn(m map[string]any, path []string, v any) bool {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p]
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		t, ok := next.(map[string]any)
		if !ok {
			return false
		}
		m = t
	}
	m[path[len(path)-1]] = v
	return true
}

// parseLine is the line of a TOML parse error, 0 when it names none.
func parseLine(err error) int {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Position.Line
	}
	return 0
}

// oneLine is an error's first line.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
