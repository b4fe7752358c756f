package contract

import (
	"path"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// A contract is written for an agent that reads: besides its Inputs, it
// names files in sentences ("Read `shared/task-schema.md` first"), lists,
// links, code spans and tables, and folders too ("the files in
// `references/`"). Mentions finds those names as words that look like
// paths; which of them are files is for the caller to find out on disk,
// so a word that only looks like a path (e.g. "and/or") costs one look.

// Mention is a path the contract's text names.
type Mention struct {
	// Path is the path as written, without what surrounds it in the
	// sentence (quotes, emphasis, a #section, a :line, a trailing stop).
	Path string `json:"path"`
	// Beside is the folder of the path named just before it on the same
	// line, when Path is a bare file name ("`a/findings.md` and
	// `sources.md`": sources.md may be beside findings.md), else "".
	Beside string `json:"beside,omitempty"`
}

// Mentions lists the paths the contract names anywhere in the text the
// model reads or icm reads: its summary and every section, in order,
// each once. HTML comments are left out: they are the author's notes to
// themselves.
func (c *Contract) Mentions() []Mention {
	var out []Mention
	seen := map[Mention]bool{}
	add := func(text string) {
		for _, m := range MentionsIn(text) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	add(c.Summary)
	for _, s := range c.Sections {
		add(s.Text)
	}
	return out
}

// MentionsIn lists the paths text names, in order, each once (HTML
// comments left out).
func MentionsIn(text string) []Mention {
	var out []Mention
	seen := map[Mention]bool{}
	for _, line := range strings.Split(markdown.Uncomment(text), "\n") {
		last := ""
		for _, w := range lineWords(line) {
			p, ok := mentionPath(w)
			if !ok {
				continue
			}
			m := Mention{Path: p}
			if !strings.Contains(p, "/") && last != "" {
				m.Beside = path.Dir(last)
			}
			if strings.Contains(strings.TrimSuffix(p, "/"), "/") {
				last = strings.TrimSuffix(p, "/")
			}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// lineWords splits a line into the words that may be paths: link
// targets apart from their labels, code spans' words, table cells'
// words, the words of sentences.
func lineWords(line string) []string {
	line = strings.ReplaceAll(line, "](", "] (")
	return strings.FieldsFunc(line, func(r rune) bool {
		switch r {
		case ' ', '\t', '`', '|', ',', ';', '(', ')', '"':
			return true
		}
		return false
	})
}

// mentionExt is a file name's extension: a letter, then letters or
// digits.
var mentionExt = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,7}$`)

// mentionPath cleans a word into the path it names, and says whether it
// looks like one: a name with an extension, or a path with a folder.
// Web addresses, placeholders, patterns, options and hidden files are
// not paths to read.
func mentionPath(w string) (string, bool) {
	w = strings.TrimLeft(w, "[*'<>~@")
	w = strings.TrimRight(w, "]*'<>.:!?")
	if i := strings.IndexByte(w, '#'); i >= 0 {
		w = w[:i]
	}
	if i := strings.LastIndexByte(w, ':'); i > 0 && allDigits(w[i+1:]) {
		w = w[:i] // file.go:12
	}
	w = strings.TrimRight(w, ".:")
	switch {
	case w == "" || strings.HasPrefix(w, "-") || strings.Contains(w, "://") || strings.HasPrefix(w, "mailto:"),
		strings.ContainsAny(w, "[]{}<>*?$%\\:=&"):
		return "", false
	}
	folder := strings.HasSuffix(w, "/")
	p := path.Clean(w)
	if folder && p != "/" {
		p += "/"
	}
	name := path.Base(strings.TrimSuffix(p, "/"))
	if name == "." || name == ".." || name == "/" {
		return "", false
	}
	for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return "", false // hidden files and folders (.env, .git) are never offered
		}
	}
	if !folder && !strings.Contains(p, "/") && !validName(name) {
		return "", false // a bare word is a file only with an extension
	}
	return p, true
}

// validName reports whether a bare name has a name and an extension
// that starts with a letter ("notes.md", not ".md" or "v1.2"), one of
// them longer than a letter (not the "e.g" of a sentence).
func validName(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	return dot > 0 && mentionExt.MatchString(name[dot:]) && (dot > 1 || len(name)-dot > 2)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
