package agent

import "strings"

// wrapperInfo are the info strings of a fence that wraps a whole answer
// meant as prose; a fence naming a programming language is content.
var wrapperInfo = map[string]bool{"": true, "markdown": true, "md": true, "text": true, "txt": true, "plaintext": true, "plain": true}

// fenceLine describes a Markdown code fence line.
type fenceLine struct {
	char byte // '`' or '~'
	n    int  // length of the run
	info string
}

// parseFence reads a fence line: up to three spaces, three or more
// backticks or tildes, then an optional info string (which may not
// contain a backtick after a backtick fence).
func parseFence(line string) (fenceLine, bool) {
	t := strings.TrimRight(line, " \t")
	indent := len(t) - len(strings.TrimLeft(t, " "))
	if indent > 3 {
		return fenceLine{}, false
	}
	t = t[indent:]
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return fenceLine{}, false
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return fenceLine{}, false
	}
	info := strings.TrimSpace(t[n:])
	if c == '`' && strings.ContainsRune(info, '`') {
		return fenceLine{}, false
	}
	return fenceLine{char: c, n: n, info: info}, true
}

// closes reports whether f is a closing fence for the block opened by open.
func (f fenceLine) closes(open fenceLine) bool {
	return f.info == "" && f.char == open.char && f.n >= open.n
}

// unwrapFence removes one code fence that wraps the whole of s, when its
// info string marks prose. Models nest fences carelessly, so an inner
// block is accepted when it opens with an info string (```python) or with
// a shorter or different fence; an inner bare fence that would close the
// wrapper means s is several blocks, and s is left alone.
func unwrapFence(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) < 2 {
		return s
	}
	open, ok := parseFence(lines[0])
	if !ok || !wrapperInfo[strings.ToLower(firstWord(open.info))] {
		return s
	}
	last, ok := parseFence(lines[len(lines)-1])
	if !ok || !last.closes(open) {
		return s
	}
	var stack []fenceLine
	for _, line := range lines[1 : len(lines)-1] {
		f, ok := parseFence(line)
		if !ok {
			continue
		}
		switch {
		case len(stack) > 0:
			if f.closes(stack[len(stack)-1]) {
				stack = stack[:len(stack)-1]
			}
		case f.closes(open):
			return s
		default:
			stack = append(stack, f)
		}
	}
	inner := strings.Join(lines[1:len(lines)-1], "\n")
	if len(stack) > 0 || isBlank(inner) {
		return s
	}
	return inner
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t{"); i >= 0 {
		return s[:i]
	}
	return s
}
