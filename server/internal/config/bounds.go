package config

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Bounds on config.toml, checked before the TOML library sees the text.
// That library's cost grows with the nesting of inline tables, arrays and
// dotted keys, and quadratically with some of them (48 KB of nested
// inline tables took 24 s and 4 GB), and every command and the editor
// read config.toml when they open a workspace. A real one is a few
// hundred bytes and nests three levels at most ([mcp.servers.NAME.env],
// servers = [{ url = "..." }]), far inside these.
const (
	// MaxFileBytes caps the file.
	MaxFileBytes = 64 << 10
	// MaxNesting caps the arrays and inline tables open at one place.
	MaxNesting = 8
	// MaxKeyParts caps the parts of one dotted key or table header.
	MaxKeyParts = 8
	// MaxEntries caps the keys set and the tables opened ([table] and
	// [[table]] lines): the library's cost grows with each, whatever
	// its size.
	MaxEntries = 1024
)

// BoundsError says config text is past one of the bounds above, where.
type BoundsError struct {
	Path string
	// Line and Col (1-based, Col in bytes) and Offset place the problem.
	Line, Col, Offset int
	Msg               string
}

func (e *BoundsError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// Hint says what to do.
func (e *BoundsError) Hint() string {
	return "config.toml holds a few settings; write them as plain tables ([model], [workflow], [mcp.servers.NAME])"
}

// Fault is a config.toml icm cannot use, at the place the bound is passed.
func (e *BoundsError) Fault() *fault.Error {
	return fault.ConfigInvalid(e.Error(), e.Hint(), e.Path).At(e.Path, e.Line)
}

// Precheck refuses config text that is larger or nested deeper than the
// bounds above, in one pass over its bytes and without parsing it: it
// only tells strings and comments apart, so a file it accepts may still
// be malformed TOML (the parser then says where). path names the file
// in the error.
func Precheck(path string, data []byte) error {
	if len(data) > MaxFileBytes {
		return &BoundsError{Path: path, Line: 1, Col: 1,
			Msg: fmt.Sprintf("config.toml is %s; icm reads at most %s of settings", sizeText(len(data)), sizeText(MaxFileBytes))}
	}
	s := scanner{data: data, line: 1, lineStart: 0, lineEmpty: true}
	return s.run(path)
}

// scanner walks config text once.
type scanner struct {
	data      []byte
	i         int
	line      int
	lineStart int
	depth     int
	// parts counts the parts of the dotted key being read; dot says a
	// dot was the last thing outside a string, part that a key part was.
	parts     int
	dot, part bool
	// entries counts keys set and table headers; lineEmpty says nothing
	// but blanks came before on the line.
	entries   int
	lineEmpty bool
}

func (s *scanner) fail(path, msg string, at int) error {
	return &BoundsError{Path: path, Line: s.line, Col: at - s.lineStart + 1, Offset: at, Msg: msg}
}

func (s *scanner) newline(at int) {
	s.line++
	s.lineStart = at + 1
	s.lineEmpty = true
}

// entry counts a key or a table header at.
func (s *scanner) entry(path string, at int) error {
	s.entries++
	if s.entries > MaxEntries {
		return s.fail(path, fmt.Sprintf("more than %d keys and tables; icm reads at most %d", MaxEntries, MaxEntries), at)
	}
	return nil
}

// keyPart records a bare word or a quoted string: a key part when it
// follows a dot, the start of a new chain otherwise.
func (s *scanner) keyPart(path string, at int) error {
	if s.dot {
		s.parts++
	} else {
		s.parts = 1
	}
	s.dot, s.part = false, true
	if s.parts > MaxKeyParts {
		return s.fail(path, fmt.Sprintf("a dotted key of more than %d parts; icm reads keys of at most %d", MaxKeyParts, MaxKeyParts), at)
	}
	return nil
}

func (s *scanner) run(path string) error {
	d := s.data
	for s.i < len(d) {
		c := d[s.i]
		start := s.i
		switch {
		case c == '\n':
			s.newline(s.i)
			s.dot, s.part = false, false
			s.i++
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
		case c == '#':
			for s.i < len(d) && d[s.i] != '\n' {
				s.i++
			}
		case c == '"' || c == '\'':
			if err := s.keyPart(path, start); err != nil {
				return err
			}
			s.skipString(c)
		case c == '.':
			s.dot = s.part
			s.part = false
			s.i++
		case c == '[' || c == '{':
			if c == '[' && s.depth == 0 && s.lineEmpty {
				if err := s.entry(path, start); err != nil {
					return err
				}
			}
			s.depth++
			s.dot, s.part = false, false
			if s.depth > MaxNesting {
				return s.fail(path, fmt.Sprintf("arrays and inline tables nested more than %d deep; icm reads at most %d levels", MaxNesting, MaxNesting), start)
			}
			s.i++
		case c == ']' || c == '}':
			if s.depth > 0 {
				s.depth--
			}
			s.dot, s.part = false, false
			s.i++
		case isBare(c):
			for s.i < len(d) && isBare(d[s.i]) {
				s.i++
			}
			if err := s.keyPart(path, start); err != nil {
				return err
			}
		case c == '=':
			if err := s.entry(path, start); err != nil {
				return err
			}
			s.dot, s.part = false, false
			s.i++
		default:
			s.dot, s.part = false, false
			s.i++
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			s.lineEmpty = false
		}
	}
	return nil
}

// skipString moves past a string that opens at s.i with quote q: basic
// or literal, on one line or (tripled quotes) over several.
func (s *scanner) skipString(q byte) {
	d := s.data
	if s.i+2 < len(d) && d[s.i+1] == q && d[s.i+2] == q {
		s.i += 3
		for s.i < len(d) {
			switch c := d[s.i]; {
			case c == '\\' && q == '"':
				if s.i+1 < len(d) && d[s.i+1] == '\n' {
					s.newline(s.i + 1)
				}
				s.i += 2
			case c == '\n':
				s.newline(s.i)
				s.i++
			case c == q && s.i+2 < len(d) && d[s.i+1] == q && d[s.i+2] == q:
				s.i += 3
				// Up to two more quotes may end the string's text.
				for n := 0; n < 2 && s.i < len(d) && d[s.i] == q; n++ {
					s.i++
				}
				return
			default:
				s.i++
			}
		}
		return
	}
	s.i++
	for s.i < len(d) {
		switch c := d[s.i]; {
		case c == '\\' && q == '"' && s.i+1 < len(d) && d[s.i+1] != '\n':
			s.i += 2
		case c == q:
			s.i++
			return
		case c == '\n':
			return // unterminated: the parser says so; the newline is counted by run
		default:
			s.i++
		}
	}
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+' || c == ':'
}

// sizeText is a size for people: 64 KB, 1.0 MB.
func sizeText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	if n >= 1<<10 {
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
