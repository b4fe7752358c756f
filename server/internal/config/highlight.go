package config

// TokenKind sorts the pieces of config.toml text the editor colours.
type TokenKind int

// Kinds of config.toml tokens.
const (
	TokenComment TokenKind = iota
	// TokenTable is a table header's name: [model], [[model.servers]].
	TokenTable
	// TokenKey is a key, bare or quoted, before its `=`.
	TokenKey
	TokenString
	TokenNumber
	// TokenBool is true or false.
	TokenBool
	// TokenDate is an offset or local date-time, date or time.
	TokenDate
	// TokenOperator is `=`.
	TokenOperator
)

// Token is one coloured piece of text: never more than one line, never
// holding the line break.
type Token struct {
	Span
	Kind TokenKind
}

// Highlight cuts config text into the tokens the editor colours. It is a
// lexer, not a parser: text TOML refuses still gets colours, each byte is
// looked at a bounded number of times, and what it does not recognise is
// left uncoloured. Tokens come in order and never overlap.
func Highlight(src []byte) []Token {
	h := &highlighter{src: src}
	h.lines()
	return h.out
}

type highlighter struct {
	src []byte
	i   int
	out []Token
}

func (h *highlighter) emit(start, end int, k TokenKind) {
	// One line at a time: a multi-line string is cut at its line breaks
	// (\n, \r\n, or a lone \r, which editors also take for one).
	for start < end {
		nl := start
		for nl < end && h.src[nl] != '\n' && h.src[nl] != '\r' {
			nl++
		}
		if nl > start {
			h.out = append(h.out, Token{Span{start, nl}, k})
		}
		start = nl + 1
	}
}

func (h *highlighter) peek(n int) byte {
	if h.i+n < len(h.src) {
		return h.src[h.i+n]
	}
	return 0
}

func (h *highlighter) at(s string) bool {
	return h.i+len(s) <= len(h.src) && string(h.src[h.i:h.i+len(s)]) == s
}

func (h *highlighter) skipBlank() {
	for h.i < len(h.src) && (h.src[h.i] == ' ' || h.src[h.i] == '\t') {
		h.i++
	}
}

// lines reads the file a line at a time: a header, a `key = value`, or
// a comment; anything else is skipped to the end of its line.
func (h *highlighter) lines() {
	for h.i < len(h.src) {
		h.skipBlank()
		switch c := h.peek(0); {
		case c == '\n' || c == '\r':
			h.i++
		case c == '#':
			h.comment()
		case c == '[':
			h.header()
		case c == 0 && h.i >= len(h.src):
			return
		default:
			if !h.keyValue('\n') {
				h.toLineEnd()
			}
		}
	}
}

func (h *highlighter) toLineEnd() {
	for h.i < len(h.src) && h.src[h.i] != '\n' {
		if h.src[h.i] == '#' {
			h.comment()
			return
		}
		h.i++
	}
}

func (h *highlighter) comment() {
	start := h.i
	for h.i < len(h.src) && h.src[h.i] != '\n' {
		h.i++
	}
	h.emit(start, h.i, TokenComment)
}

// header colours `[name]` and `[[name]]`: the name as a table.
func (h *highlighter) header() {
	h.i++ // [
	if h.peek(0) == '[' {
		h.i++
	}
	h.skipBlank()
	start := h.i
	for h.i < len(h.src) && h.src[h.i] != ']' && h.src[h.i] != '\n' && h.src[h.i] != '#' {
		if q := h.src[h.i]; q == '"' || q == '\'' {
			h.skipQuoted(q)
			continue
		}
		h.i++
	}
	end := h.i
	for end > start && (h.src[end-1] == ' ' || h.src[end-1] == '\t') {
		end--
	}
	h.emit(start, end, TokenTable)
	h.toLineEnd()
}

// skipQuoted moves past a one-line quoted key part.
func (h *highlighter) skipQuoted(q byte) {
	h.i++
	for h.i < len(h.src) && h.src[h.i] != q && h.src[h.i] != '\n' {
		if q == '"' && h.src[h.i] == '\\' {
			h.i++
		}
		h.i++
	}
	h.i = min(h.i, len(h.src)) // a backslash at the very end
	if h.i < len(h.src) && h.src[h.i] == q {
		h.i++
	}
}

// keyValue colours `key = value` up to stop (a line break at the top, `,`
// or `}` in an inline table); false when the text is no key.
func (h *highlighter) keyValue(stop byte) bool {
	start := h.i
	for h.i < len(h.src) {
		c := h.src[h.i]
		if c == '"' || c == '\'' {
			h.skipQuoted(c)
			continue
		}
		if !isKeyByte(c) && c != '.' && c != ' ' && c != '\t' {
			break
		}
		h.i++
	}
	if h.peek(0) != '=' || h.i == start {
		h.i = start
		return false
	}
	end := h.i
	for end > start && (h.src[end-1] == ' ' || h.src[end-1] == '\t') {
		end--
	}
	h.emit(start, end, TokenKey)
	h.emit(h.i, h.i+1, TokenOperator)
	h.i++
	h.skipBlank()
	h.value()
	if stop == '\n' {
		h.toLineEnd()
	}
	return true
}

// isKeyByte is a byte of a bare key.
func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value colours one value: a string, an array, an inline table, or a
// bare word (number, boolean, date).
func (h *highlighter) value() {
	switch c := h.peek(0); c {
	case '"', '\'':
		h.str(c)
	case '[':
		h.array()
	case '{':
		h.inline()
	case 0, '\n', '#':
	default:
		h.word()
	}
}

func (h *highlighter) str(q byte) {
	start := h.i
	triple := string([]byte{q, q, q})
	if h.at(triple) {
		h.i += 3
		for h.i < len(h.src) && !h.at(triple) {
			if q == '"' && h.src[h.i] == '\\' {
				h.i++
			}
			h.i++
		}
		h.i = min(h.i+3, len(h.src)) // also past a backslash at the very end
		// Up to two more quotes may close it ("""a"""" is a then ").
		for n := 0; n < 2 && h.i < len(h.src) && h.src[h.i] == q; n++ {
			h.i++
		}
		h.emit(start, h.i, TokenString)
		return
	}
	h.skipQuoted(q)
	h.emit(start, h.i, TokenString)
}

// array colours the values of [a, b, ...], across lines, comments too.
func (h *highlighter) array() {
	h.i++ // [
	for h.i < len(h.src) {
		switch h.peek(0) {
		case ']':
			h.i++
			return
		case ' ', '\t', '\n', '\r', ',':
			h.i++
		case '#':
			h.comment()
		default:
			before := h.i
			h.value()
			if h.i == before {
				h.i++ // not a value: move on rather than loop
			}
		}
	}
}

// inline colours { key = value, ... } on its line.
func (h *highlighter) inline() {
	h.i++ // {
	for h.i < len(h.src) {
		h.skipBlank()
		switch h.peek(0) {
		case '}':
			h.i++
			return
		case '\n', 0:
			return
		case ',':
			h.i++
		default:
			if !h.keyValue(',') {
				h.i++
			}
		}
	}
}

// word colours a bare value: true/false, a number, or a date-time.
func (h *highlighter) word() {
	start := h.i
	for h.i < len(h.src) {
		c := h.src[h.i]
		// A local date-time may hold one space: 1979-05-27 07:32:00.
		if c == ' ' && h.i > start && h.src[h.i-1] >= '0' && h.src[h.i-1] <= '9' && isDigit(h.peek(1)) && looksDate(h.src[start:h.i]) {
			h.i++
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ']' || c == '}' || c == '#' {
			break
		}
		h.i++
	}
	w := string(h.src[start:h.i])
	switch {
	case w == "true" || w == "false":
		h.emit(start, h.i, TokenBool)
	case looksDate(h.src[start:h.i]):
		h.emit(start, h.i, TokenDate)
	case looksNumber(w):
		h.emit(start, h.i, TokenNumber)
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// looksDate: 1979-05-27 or 07:32:00 and what follows them.
func looksDate(w []byte) bool {
	if len(w) >= 10 && isDigit(w[0]) && isDigit(w[3]) && w[4] == '-' && w[7] == '-' {
		return true
	}
	return len(w) >= 5 && isDigit(w[0]) && isDigit(w[1]) && w[2] == ':' && isDigit(w[3])
}

// looksNumber: an integer or float as TOML writes them (sign, _, 0x, e,
// inf, nan).
func looksNumber(w string) bool {
	if w == "" {
		return false
	}
	if w[0] == '+' || w[0] == '-' {
		w = w[1:]
	}
	switch w {
	case "inf", "nan":
		return true
	case "":
		return false
	}
	if !isDigit(w[0]) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(isDigit(c) || c == '_' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' || c == 'x' || c == 'o' || c == 'b' ||
			c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
