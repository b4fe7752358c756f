package config

import (
	"regexp"
	"strings"
)

// Span is a byte range of config text.
type Span struct {
	Start, End int
}

// Entry is one `key = value` line (or table header) of a config file, as
// the editor needs it: where the key and the value are.
type Entry struct {
	// Path is the dotted key path ("model.name"); for a header, the table.
	Path string
	// Table is the table the line sits in ("" at the top).
	Table string
	// Header is set for `[table]` and `[[table]]` lines.
	Header bool
	Line   int // 1-based
	Key    Span
	Value  Span
}

var (
	headerLine = regexp.MustCompile(`^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?`)
	keyLine    = regexp.MustCompile(`^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=\s*`)
)

// Entries scans config text line by line for table headers and keys. It is
// not a TOML parser (that is BurntSushi/toml's job): it only places what
// the parser reports, so it tolerates text the parser refuses, skipping
// the inside of multi-line strings and arrays.
func Entries(data []byte) []Entry {
	var out []Entry
	table := ""
	off := 0
	depth := 0     // open brackets of a multi-line array
	inStr := false // inside a """ or ''' string
	for n, line := range strings.SplitAfter(string(data), "\n") {
		start := off
		off += len(line)
		text := strings.TrimRight(line, "\r\n")
		if inStr {
			if strings.Count(text, `"""`)%2 == 1 || strings.Count(text, "'''")%2 == 1 {
				inStr = false
			}
			continue
		}
		if depth > 0 {
			depth += bracketDepth(text)
			continue
		}
		trim := strings.TrimSpace(text)
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		if m := headerLine.FindStringSubmatchIndex(text); m != nil && strings.HasPrefix(trim, "[") {
			table = unquoteKey(text[m[4]:m[5]])
			out = append(out, Entry{Path: table, Table: table, Header: true, Line: n + 1, Key: Span{start + m[4], start + m[5]}})
			continue
		}
		m := keyLine.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		key := unquoteKey(text[m[2]:m[3]])
		path := key
		if table != "" {
			path = table + "." + key
		}
		vs := m[1]
		value := text[vs:]
		ve := len(text)
		if i := commentStart(value); i >= 0 {
			ve = vs + i
		}
		for ve > vs && (text[ve-1] == ' ' || text[ve-1] == '\t') {
			ve--
		}
		out = append(out, Entry{Path: path, Table: table, Line: n + 1, Key: Span{start + m[2], start + m[3]}, Value: Span{start + vs, start + ve}})
		switch {
		case strings.HasPrefix(value, `"""`) && strings.Count(value, `"""`) == 1,
			strings.HasPrefix(value, "'''") && strings.Count(value, "'''") == 1:
			inStr = true
		case strings.HasPrefix(value, "["):
			depth = bracketDepth(value)
		}
	}
	return out
}

// EntryAt returns the entry whose line holds offset, and the table the
// offset sits in (for completing a new key on an empty line).
func EntryAt(data []byte, offset int) (e Entry, ok bool, table string) {
	lineStart := strings.LastIndexByte(string(data[:min(offset, len(data))]), '\n') + 1
	for _, x := range Entries(data) {
		if x.Key.Start > offset {
			break
		}
		if x.Header {
			table = x.Table
		}
		if x.Key.Start >= lineStart {
			return x, true, x.Table
		}
	}
	return Entry{}, false, table
}

// entryIndex finds entries by path: Lint places each of up to thousands
// of problems, and a walk of the entries per problem was quadratic.
type entryIndex map[string]Entry

// indexEntries indexes entries, the first of each path winning.
func indexEntries(entries []Entry) entryIndex {
	ix := make(entryIndex, len(entries))
	for _, e := range entries {
		if _, ok := ix[e.Path]; !ok {
			ix[e.Path] = e
		}
	}
	return ix
}

// find returns the first entry with path.
func (ix entryIndex) find(path string) (Entry, bool) {
	e, ok := ix[path]
	return e, ok
}

// bracketDepth is how many brackets a value leaves open (a multi-line
// array), strings and a comment left out.
func bracketDepth(s string) int {
	d, _ := scanValue(s)
	return d
}

// commentStart finds a # that starts a comment (outside strings) in a
// value, -1 when there is none.
func commentStart(s string) int {
	_, at := scanValue(s)
	return at
}

// scanValue walks a value once, skipping strings: the brackets it leaves
// open and where a comment starts (-1: none; the walk stops there).
func scanValue(s string) (depth, comment int) {
	in := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in != 0:
			if c == '\\' && in == '"' {
				i++
			} else if c == in {
				in = 0
			}
		case c == '"' || c == '\'':
			in = c
		case c == '#':
			return depth, i
		case c == '[':
			depth++
		case c == ']':
			depth--
		}
	}
	return depth, -1
}

// unquoteKey normalises a dotted key: spaces around dots dropped, quotes
// taken off each part.
func unquoteKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' && p[len(p)-1] == '"' || p[0] == '\'' && p[len(p)-1] == '\'') {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}
