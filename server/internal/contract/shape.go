package contract

import (
	"path"
	"regexp"
	"strings"
	"unicode"
)

// Contracts are read by the shape of what they hold, not by the English
// words around it: a cell is a path when it looks like one (backticks, a
// slash, a file extension), in whatever language the table is written.

// placeholder matches the template placeholders that make a path
// unresolvable until someone fills them in: "[slug]", "{{NAME}}", "<repo>"
// and "{slug}" (braces holding a comma are a brace list, see braceList).
var placeholder = regexp.MustCompile(`\[[^\]]+\]|\{\{[^}]*\}\}|<[^>]+>|\{[^{},]+\}`)

// extension matches a file extension at the end of a path.
var extension = regexp.MustCompile(`\.[A-Za-z0-9]{1,10}$`)

// mdLink matches a Markdown link written in a cell: "[voice.md](../voice.md)".
var mdLink = regexp.MustCompile(`^\[[^\]]*\]\(\s*<?([^)\s>]+)>?\s*\)$`)

// nonFileWords are things an input or output row may name that are not
// files, in the languages contracts are written in. A cell that is one of
// them (or starts with one, followed by a qualifier) is never a path.
var nonFileWords = map[string]bool{
	// English
	"conversation": true, "chat": true, "user": true, "user input": true, "user request": true,
	"prompt": true, "url": true, "urls": true, "link": true, "repository": true, "repo": true,
	"diff": true, "codebase": true, "clipboard": true, "terminal": true, "session": true,
	"message": true, "messages": true, "browser": true, "web": true, "website": true,
	"live site": true, "production": true, "deployment": true, "commit": true, "commits": true,
	// Portuguese
	"conversa": true, "usuário": true, "usuario": true, "entrada do usuário": true,
	"entrada do usuario": true, "repositório": true, "repositorio": true, "mensagem": true,
	"site": true, "navegador": true,
	// Spanish
	"conversación": true, "entrada del usuario": true,
	"mensaje": true, "enlace": true, "sitio": true,
	// French
	"utilisateur": true, "dépôt": true, "lien": true,
	// German
	"gespräch": true, "benutzer": true, "nutzer": true, "eingabe": true,
}

// nonFileName reports whether s names something that is not a file.
func nonFileName(s string) bool {
	t := strings.ToLower(strings.TrimSpace(strings.Trim(s, "`*_ ")))
	if t == "" {
		return true
	}
	if strings.HasPrefix(t, "(") || strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") {
		return true
	}
	if nonFileWords[t] {
		return true
	}
	for _, sep := range []string{" (", ", ", " - ", " — ", ": "} {
		if head, _, ok := strings.Cut(t, sep); ok && nonFileWords[head] {
			return true
		}
	}
	return false
}

// pathShaped reports whether text (without its backticks; quoted says it
// had them) is written like a path: no spaces outside placeholders, and a
// slash, an extension, a glob, or backticks around a single word.
func pathShaped(text string, quoted bool) bool {
	t := strings.TrimSpace(text)
	if t == "" || nonFileName(t) {
		return false
	}
	bare, templated := withoutPlaceholders(t)
	if strings.ContainsAny(bare, " \t") {
		return false
	}
	if strings.ContainsAny(bare, "/\\*") || extension.MatchString(strings.TrimSuffix(bare, "/")) {
		return true
	}
	return quoted || templated
}

// withoutPlaceholders replaces each placeholder in s by "x" and says
// whether there was any.
func withoutPlaceholders(s string) (string, bool) {
	if !strings.ContainsAny(s, "[{<") || !placeholder.MatchString(s) {
		return s, false
	}
	return placeholder.ReplaceAllString(s, "x"), true
}

// folderShaped reports whether a path names a folder ("output/", "output").
func folderShaped(p string) bool {
	return strings.HasSuffix(p, "/") || path.Clean(p) == "output"
}

// fileNameShaped reports whether s is a bare file name: one segment with
// an extension ("report.md", "[slug]-brief.md").
func fileNameShaped(s string) bool {
	t := strings.TrimSpace(s)
	bare, _ := withoutPlaceholders(t)
	return t != "" && !strings.ContainsAny(bare, "/\\ \t") && (extension.MatchString(bare) || strings.HasSuffix(bare, ".*")) && !nonFileName(t)
}

// cellPath returns the path a table cell holds: the text in its first pair
// of backticks, a Markdown link's target, or the whole trimmed cell. at is
// its offset in the cell text; quoted says it was in backticks.
func cellPath(s string) (p string, at int, quoted bool) {
	t := strings.TrimSpace(s)
	lead := strings.Index(s, t)
	if strings.HasPrefix(t, "`") {
		if end := strings.Index(t[1:], "`"); end >= 0 {
			inner := t[1 : 1+end]
			trimmed := strings.TrimSpace(inner)
			return trimmed, lead + 1 + strings.Index(inner, trimmed), true
		}
	}
	if m := mdLink.FindStringSubmatchIndex(t); m != nil {
		return t[m[2]:m[3]], lead + m[2], true
	}
	return t, lead, false
}

// words lowercases s and splits it into words, dropping punctuation, so
// that "Arquivo / Localização" gives "arquivo", "localização".
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// hasWord reports whether any word of s is in set.
func hasWord(s string, set map[string]bool) bool {
	for _, w := range words(s) {
		if set[w] {
			return true
		}
	}
	return false
}

// splitPhrases splits each phrase into its words, once.
func splitPhrases(phrases ...string) [][]string {
	out := make([][]string, len(phrases))
	for i, p := range phrases {
		out[i] = words(p)
	}
	return out
}

// hasPhrase reports whether one of the phrases appears among ws, its words
// in order and next to each other.
func hasPhrase(ws []string, phrases [][]string) bool {
	for i := range ws {
		for _, ph := range phrases {
			if len(ph) > 0 && ws[i] == ph[0] && i+len(ph) <= len(ws) && equalWords(ws[i:i+len(ph)], ph) {
				return true
			}
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// PlaceholderGlob turns a path holding placeholders into a glob pattern
// whose * stands for each placeholder ("output/[slug]-brief.md" gives
// "output/*-brief.md"), so the files already written for it can be found.
func PlaceholderGlob(p string) string {
	return placeholder.ReplaceAllString(globEscape(p), "*")
}

// PlaceholderPattern is PlaceholderGlob for a path that is also a glob
// ("output/[slug]-cd-*.yml"): its own * and ? stay wildcards.
func PlaceholderPattern(p string) string {
	return strings.NewReplacer(`\*`, "*", `\?`, "?").Replace(PlaceholderGlob(p))
}

// globEscape protects the glob meta-characters a path may hold outside
// its placeholders, so that only placeholders become wildcards.
func globEscape(p string) string {
	var b strings.Builder
	last := 0
	for _, m := range placeholder.FindAllStringIndex(p, -1) {
		b.WriteString(escapeMeta(p[last:m[0]]))
		b.WriteString(p[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(escapeMeta(p[last:]))
	return b.String()
}

func escapeMeta(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// fileMention matches a word that names a file: a name, perhaps below
// folders, with an extension of two to six letters or digits.
var fileMention = regexp.MustCompile(`^[\p{L}\p{N}_\-\[\]{}.]*[\p{L}\p{N}_\-\]}]\.[A-Za-z][A-Za-z0-9]{1,5}$`)

// MentionsFile reports whether text names a file somewhere among its
// words ("discovery_brief.md (the brief)"), in any layout.
func MentionsFile(text string) bool {
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, "`*_'\",;:()<>")
		if i := strings.LastIndex(w, "/"); i >= 0 {
			w = w[i+1:]
		}
		if fileMention.MatchString(w) {
			return true
		}
	}
	return false
}
