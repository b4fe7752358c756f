package export

import (
	"go/scanner"
	"go/token"
	"html"
	"strings"
)

// Code is highlighted by icm's own small tokenizers, for the languages an
// ICM article checks and shows most (Go, Python, shell, JSON); a block in
// any other language is shown as it is. Each token becomes a span with one
// of a handful of classes, coloured by the page's style sheet.
const (
	classKeyword   = "k"
	classString    = "s"
	classComment   = "c"
	classNumber    = "m"
	classConstant  = "l" // true, None, nil...
	classDecorator = "d"
	classType      = "t" // Go's predeclared types
)

// span is one highlighted stretch of a block: bytes [start, end) of its
// text, drawn with class.
type span struct {
	start, end int
	class      string
}

// highlightHTML is text as HTML, with the spans lang's tokenizer finds
// wrapped in <span class=...>; every byte is escaped.
func highlightHTML(lang, text string) string {
	var spans []span
	switch strings.ToLower(lang) {
	case "go", "golang":
		spans = goSpans(text)
	case "python", "py", "python3":
		spans = pythonSpans(text)
	case "sh", "bash", "shell", "zsh", "console":
		spans = shellSpans(text)
	case "json", "jsonc":
		spans = jsonSpans(text)
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		if sp.start < at || sp.end > len(text) || sp.end <= sp.start {
			continue // overlapping or out of range: left plain
		}
		b.WriteString(html.EscapeString(text[at:sp.start]))
		b.WriteString(`<span class="` + sp.class + `">`)
		b.WriteString(html.EscapeString(text[sp.start:sp.end]))
		b.WriteString("</span>")
		at = sp.end
	}
	b.WriteString(html.EscapeString(text[at:]))
	return b.String()
}

// goConstants and goTypes are Go's predeclared names worth a colour.
var (
	goConstants = set("true", "false", "nil", "iota")
	goTypes     = set("bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int", "int8", "int16", "int32",
		"int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any", "comparable")
)

// goSpans reads Go with the standard library's scanner, so keywords,
// literals and comments are exactly Go's; code that does not scan keeps
// the spans found up to there.
func goSpans(text string) []span {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(text))
	var s scanner.Scanner
	s.Init(file, []byte(text), func(token.Position, string) {}, scanner.ScanComments)
	var out []span
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		start := file.Offset(pos)
		end := start + len(lit)
		if lit == "" {
			end = start + len(tok.String())
		}
		class := ""
		switch {
		case tok == token.SEMICOLON && lit == "\n":
			continue // inserted by the scanner, not in the text
		case tok.IsKeyword():
			class = classKeyword
		case tok == token.STRING || tok == token.CHAR:
			class = classString
		case tok == token.INT || tok == token.FLOAT || tok == token.IMAG:
			class = classNumber
		case tok == token.COMMENT:
			class = classComment
		case tok == token.IDENT && goConstants[lit]:
			class = classConstant
		case tok == token.IDENT && goTypes[lit]:
			class = classType
		}
		if class != "" {
			out = append(out, span{start, end, class})
		}
	}
}

// pythonKeywords are Python 3's keywords and soft keywords, but for the
// three constants.
var pythonKeywords = set("and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else",
	"except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
	"raise", "return", "try", "while", "with", "yield", "match", "case")

// pythonSpans finds Python's comments, strings (prefixed and triple
// quoted), numbers, keywords, constants and decorators.
func pythonSpans(text string) []span {
	var out []span
	lineStart := true
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '#':
			end := lineEnd(text, i)
			out = append(out, span{i, end, classComment})
			i = end
		case c == '@' && lineStart:
			end := identEnd(text, i+1)
			for end < len(text) && text[end] == '.' {
				end = identEnd(text, end+1)
			}
			out = append(out, span{i, end, classDecorator})
			i = end
		case isDigit(c) || c == '.' && i+1 < len(text) && isDigit(text[i+1]):
			end := i + 1
			for end < len(text) && (isIdentByte(text[end]) || text[end] == '.' ||
				(text[end] == '+' || text[end] == '-') && (text[end-1] == 'e' || text[end-1] == 'E')) {
				end++
			}
			out = append(out, span{i, end, classNumber})
			i = end
		case isIdentStart(c):
			end := identEnd(text, i)
			word := text[i:end]
			if end < len(text) && (text[end] == '\'' || text[end] == '"') && isStringPrefix(word) {
				stop := quotedEnd(text, end, strings.ContainsAny(word, "rR"))
				out = append(out, span{i, stop, classString})
				i = stop
				break
			}
			switch {
			case pythonKeywords[word]:
				out = append(out, span{i, end, classKeyword})
			case word == "True" || word == "False" || word == "None":
				out = append(out, span{i, end, classConstant})
			}
			i = end
		case c == '\'' || c == '"':
			end := quotedEnd(text, i, false)
			out = append(out, span{i, end, classString})
			i = end
		default:
			i++
		}
		lineStart = false
	}
	return out
}

// isStringPrefix reports whether word may prefix a Python string literal
// (r, b, u, f and their pairs, in either case).
func isStringPrefix(word string) bool {
	if len(word) > 2 {
		return false
	}
	for i := 0; i < len(word); i++ {
		if !strings.ContainsRune("rRbBuUfF", rune(word[i])) {
			return false
		}
	}
	return true
}

// quotedEnd is where the Python string starting at the quote at i ends:
// after its closing quote (or triple quote), or at the end of the line
// (of the text, for a triple-quoted one) when it has none. A backslash
// escapes the next byte unless raw.
func quotedEnd(text string, i int, raw bool) int {
	q := text[i]
	if strings.HasPrefix(text[i:], strings.Repeat(string(q), 3)) {
		delim := text[i : i+3]
		for j := i + 3; j < len(text); j++ {
			if text[j] == '\\' && !raw {
				j++
				continue
			}
			if strings.HasPrefix(text[j:], delim) {
				return j + 3
			}
		}
		return len(text)
	}
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			if !raw {
				j++
			}
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(text)
}

// shellSpans finds a shell script's comments, quoted strings and the
// keywords of its control flow.
func shellSpans(text string) []span {
	keywords := set("if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in",
		"function", "return", "export", "local", "set")
	var out []span
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n'):
			end := lineEnd(text, i)
			out = append(out, span{i, end, classComment})
			i = end
		case c == '\'' || c == '"':
			end := i + 1
			for end < len(text) && text[end] != c {
				if text[end] == '\\' && c == '"' {
					end++
				}
				end++
			}
			end = min(end+1, len(text))
			out = append(out, span{i, end, classString})
			i = end
		case isIdentStart(c) && (i == 0 || !isIdentByte(text[i-1]) && text[i-1] != '-' && text[i-1] != '$'):
			end := identEnd(text, i)
			if keywords[text[i:end]] {
				out = append(out, span{i, end, classKeyword})
			}
			i = end
		default:
			i++
		}
	}
	return out
}

// jsonSpans finds JSON's strings, numbers and constants.
func jsonSpans(text string) []span {
	var out []span
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '"':
			end := i + 1
			for end < len(text) && text[end] != '"' && text[end] != '\n' {
				if text[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end+1, len(text))
			out = append(out, span{i, end, classString})
			i = end
		case isDigit(c) || c == '-' && i+1 < len(text) && isDigit(text[i+1]):
			end := i + 1
			for end < len(text) && (isDigit(text[end]) || strings.IndexByte(".eE+-", text[end]) >= 0) {
				end++
			}
			out = append(out, span{i, end, classNumber})
			i = end
		case isIdentStart(c):
			end := identEnd(text, i)
			if w := text[i:end]; w == "true" || w == "false" || w == "null" {
				out = append(out, span{i, end, classConstant})
			}
			i = end
		default:
			i++
		}
	}
	return out
}

func lineEnd(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(text)
}

func identEnd(text string, i int) int {
	for i < len(text) && isIdentByte(text[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
func isIdentByte(c byte) bool { return isIdentStart(c) || isDigit(c) }

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// codeStyles are the code colours of the page, by style name: each a CSS
// rule per span class. Both keep a contrast of at least 4.5:1 with their
// background.
var codeStyles = map[string]string{
	"light": `pre.code { background: #f6f8fa; color: #1f2328; }
pre.code .k { color: #8250df; font-weight: 600; }
pre.code .s { color: #0a3069; }
pre.code .c { color: #57606a; font-style: italic; }
pre.code .m, pre.code .l { color: #0550ae; }
pre.code .d { color: #953800; }
pre.code .t { color: #116329; }
`,
	"dark": `pre.code { background: #161b22; color: #e6edf3; }
pre.code .k { color: #d2a8ff; font-weight: 600; }
pre.code .s { color: #a5d6ff; }
pre.code .c { color: #8b949e; font-style: italic; }
pre.code .m, pre.code .l { color: #79c0ff; }
pre.code .d { color: #ffa657; }
pre.code .t { color: #7ee787; }
`,
}

// DefaultStyle is the code style of a page whose options name none.
const DefaultStyle = "light"

// Styles lists the code styles, sorted.
func Styles() []string { return []string{"dark", "light"} }
