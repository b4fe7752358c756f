package trust

import (
	"path"
	"regexp"
	"strings"
)

// A shell command line read for what it runs: the words a POSIX shell
// would pass, each marked as a command's name, an argument, or a
// redirection's target. Only what needs no running is known: a word with
// an expansion in it ($VAR, $(...), a glob, ~) is marked dynamic, and a
// command substitution's text is read as a command line of its own. It
// is a reading for pins, not a shell: a word misread costs a pin, never
// a run.

// shellWord is one word of a command line.
type shellWord struct {
	text string
	// program: the word names the command to run.
	program bool
	// dynamic: the word holds an expansion; its value is known only when
	// it runs.
	dynamic bool
	// input: the word is read as standard input (< FILE); output: the
	// word is written (> FILE), never run.
	input, output bool
}

// assignment matches a variable assignment before a command (NAME=value).
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// keywords are shell words after which a command's name comes.
var keywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "do": true, "while": true, "until": true,
	"!": true, "{": true, "}": true, "fi": true, "done": true, "esac": true, "time": true,
}

// wrappers run the command that follows them.
var wrappers = map[string]bool{"exec": true, "command": true, "nohup": true, "env": true, "nice": true, "builtin": true, "sudo": true}

// lexer reads one command line.
type lexer struct {
	src   string
	i     int
	words []shellWord
	// subs are the command substitutions met, to read in turn.
	subs []string

	cur     strings.Builder
	inWord  bool
	dynamic bool
	// expect says what the next word is: a command's name, or a
	// redirection's target.
	wantProgram, afterWrapper bool
	redirect                  byte // '<', '>' or 0
	heredocs                  []string
}

// shellWords reads a command line and the command substitutions in it,
// recursively, into words.
func shellWords(src string) []shellWord {
	var out []shellWord
	queue := []string{src}
	for n := 0; len(queue) > 0 && n < 64; n++ {
		l := &lexer{src: queue[0], wantProgram: true}
		queue = queue[1:]
		l.run()
		out = append(out, l.words...)
		queue = append(queue, l.subs...)
	}
	return out
}

func (l *lexer) run() {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\\':
			if l.i+1 < len(l.src) && l.src[l.i+1] != '\n' {
				l.add(l.src[l.i+1])
			}
			l.i += 2
		case c == '\'':
			end := strings.IndexByte(l.src[l.i+1:], '\'')
			if end < 0 {
				end = len(l.src) - l.i - 1
			}
			l.inWord = true
			l.cur.WriteString(l.src[l.i+1 : l.i+1+end])
			l.i += end + 2
		case c == '"':
			l.double()
		case c == '$':
			l.dollar()
		case c == '`':
			l.backtick()
		case c == ' ' || c == '\t' || c == '\r':
			l.end()
			l.i++
		case c == '\n':
			l.end()
			l.i++
			l.command()
			l.skipHeredocs()
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			if c == '&' && l.i+1 < len(l.src) && l.src[l.i+1] == '>' {
				l.end()
				l.redirect = '>'
				l.i += 2
				l.skipRedirectRest()
				continue
			}
			l.end()
			l.i++
			l.command()
		case c == '<' || c == '>':
			l.redirection(c)
		case c == '#' && !l.inWord:
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		case c == '*' || c == '?' || c == '[' || c == '~' && !l.inWord:
			l.dynamic = true
			l.add(c)
			l.i++
		default:
			l.add(c)
			l.i++
		}
	}
	l.end()
}

func (l *lexer) add(c byte) {
	l.inWord = true
	l.cur.WriteByte(c)
}

// command: what follows names a command.
func (l *lexer) command() {
	l.wantProgram, l.afterWrapper, l.redirect = true, false, 0
}

// double reads a double-quoted part of a word.
func (l *lexer) double() {
	l.inWord = true
	l.i++
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '"':
			l.i++
			return
		case c == '\\' && l.i+1 < len(l.src) && strings.IndexByte("$`\"\\\n", l.src[l.i+1]) >= 0:
			if l.src[l.i+1] != '\n' {
				l.cur.WriteByte(l.src[l.i+1])
			}
			l.i += 2
		case c == '$':
			l.dollar()
		case c == '`':
			l.backtick()
		default:
			l.cur.WriteByte(c)
			l.i++
		}
	}
}

// dollar reads an expansion: $NAME, ${...}, $(...) or $((...)).
func (l *lexer) dollar() {
	l.inWord, l.dynamic = true, true
	rest := l.src[l.i+1:]
	switch {
	case strings.HasPrefix(rest, "(("):
		l.cur.WriteString("$")
		l.i += 1 + balanced(rest, '(', ')')
	case strings.HasPrefix(rest, "("):
		n := balanced(rest, '(', ')')
		if n >= 2 {
			l.subs = append(l.subs, rest[1:n-1])
		}
		l.cur.WriteString("$(...)")
		l.i += 1 + n
	case strings.HasPrefix(rest, "{"):
		n := balanced(rest, '{', '}')
		l.cur.WriteString("$" + rest[:n])
		l.i += 1 + n
	default:
		l.cur.WriteByte('$')
		l.i++
	}
}

// backtick reads an old-style command substitution.
func (l *lexer) backtick() {
	l.inWord, l.dynamic = true, true
	end := strings.IndexByte(l.src[l.i+1:], '`')
	if end < 0 {
		end = len(l.src) - l.i - 1
	}
	l.subs = append(l.subs, l.src[l.i+1:l.i+1+end])
	l.cur.WriteString("`...`")
	l.i += end + 2
}

// balanced is the length of s up to and including the bracket that
// closes its first one (all of s when none does).
func balanced(s string, open, close byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// redirection reads <, >, >>, <<, <<-, <&, >&, <> and 2> (the digits
// before it are a descriptor, not a word).
func (l *lexer) redirection(c byte) {
	if l.inWord && strings.Trim(l.cur.String(), "0123456789") == "" && !l.dynamic {
		l.cur.Reset()
		l.inWord = false
	}
	l.end()
	l.i++
	if c == '<' && l.i < len(l.src) && l.src[l.i] == '<' {
		l.i++
		strip := l.i < len(l.src) && l.src[l.i] == '-'
		if strip {
			l.i++
		}
		if l.i < len(l.src) && l.src[l.i] == '<' { // <<< a here-string: a word, not a file
			l.i++
			return
		}
		l.heredocs = append(l.heredocs, "")
		l.redirect = 'h'
		return
	}
	l.redirect = c
	l.skipRedirectRest()
}

func (l *lexer) skipRedirectRest() {
	for l.i < len(l.src) && strings.IndexByte("<>&|", l.src[l.i]) >= 0 {
		if l.src[l.i] == '&' {
			l.redirect = 'd' // a descriptor (2>&1): not a file
		}
		l.i++
	}
}

// skipHeredocs passes over the bodies of the here-documents opened on
// the line just ended: their text is the command's input, pinned as
// written with the command line itself.
func (l *lexer) skipHeredocs() {
	for _, delim := range l.heredocs {
		for l.i < len(l.src) {
			end := strings.IndexByte(l.src[l.i:], '\n')
			line := l.src[l.i:]
			if end >= 0 {
				line = l.src[l.i : l.i+end]
				l.i += end + 1
			} else {
				l.i = len(l.src)
			}
			if strings.TrimLeft(line, "\t") == delim {
				break
			}
		}
	}
	l.heredocs = nil
}

// end closes the word being read, if any.
func (l *lexer) end() {
	if !l.inWord {
		return
	}
	w := shellWord{text: l.cur.String(), dynamic: l.dynamic}
	l.cur.Reset()
	l.inWord, l.dynamic = false, false
	switch r := l.redirect; {
	case r == 'h':
		l.heredocs[len(l.heredocs)-1] = strings.Trim(w.text, `'"`)
		l.redirect = 0
		return
	case r == 'd':
		l.redirect = 0
		return
	case r != 0:
		w.input, w.output = r == '<', r == '>'
		l.redirect = 0
		l.words = append(l.words, w)
		return
	}
	if l.wantProgram {
		switch {
		case !w.dynamic && keywords[w.text]:
			return
		case assignment.MatchString(w.text), l.afterWrapper && strings.HasPrefix(w.text, "-"):
			l.words = append(l.words, w)
			return
		}
		w.program = true
		l.wantProgram = !w.dynamic && wrappers[path.Base(w.text)]
		l.afterWrapper = l.wantProgram
	}
	l.words = append(l.words, w)
}
