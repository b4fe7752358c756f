package contract

import (
	"regexp"
	"strings"
)

// A table cell may name more than one path ("`a.md` and `b.md`",
// "a.md, b.md"), a path inside words ("Pasted text or `setup/answers.md`"),
// or a path and the section to read ("`rules.md` § Constraints").
// cellPaths finds them all.

// cellTok is one path found in a cell.
type cellTok struct {
	// path is the path as written (without backticks); at is its offset
	// in the cell text.
	path string
	at   int
	// quoted says it was in backticks or a Markdown link.
	quoted bool
	// strong says it looks like a path on its own: a slash, an extension
	// or a wildcard (a single quoted word does not).
	strong bool
	// scope is a section named right after the path ("§ Constraints").
	scope   string
	scopeAt int
	// embedded says the cell holds words besides its paths: which of them
	// icm loads rests on reading those words.
	embedded bool
}

// backtickSpan matches one code span.
var backtickSpan = regexp.MustCompile("`([^`]+)`")

// sectionMark matches a section named after a path: "§ Constraints",
// "§2 (Build)", "#Tone".
var sectionMark = regexp.MustCompile(`^\s*(?:§|#)\s*(.+?)\s*$`)

// joiners are the words and signs that join several paths in a cell.
var joiners = regexp.MustCompile(`(?i)\s*(?:,|;|\+|&|\band\b|\bor\b|\bet\b|\bou\b|\be\b|\by\b|\bo\b|\bund\b|\boder\b)\s*`)

// cellPaths returns the paths a cell names, in order.
func cellPaths(s string) []cellTok {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil
	}
	lead := strings.Index(s, t)
	if strings.HasPrefix(t, "(") {
		// "(conversation; named in `roles.md`)": a row about something
		// that is not a file, whatever it mentions.
		return nil
	}
	if strings.Contains(t, "`") {
		var toks []cellTok
		rest := t
		for _, m := range backtickSpan.FindAllStringSubmatchIndex(t, -1) {
			inner := t[m[2]:m[3]]
			p := strings.TrimSpace(inner)
			if !quotedPathShaped(p) {
				continue
			}
			tok := cellTok{path: p, at: lead + m[2] + strings.Index(inner, p), quoted: true, strong: strongPath(p)}
			toks = append(toks, tok)
			rest = strings.Replace(rest, t[m[0]:m[1]], "\x00", 1)
		}
		if len(toks) > 0 {
			residue := cellResidue(rest)
			if len(toks) == 1 {
				// "`rules.md` § Constraints": the words after the path name
				// its section.
				if _, after, ok := strings.Cut(rest, "\x00"); ok {
					if m := sectionMark.FindStringSubmatch(after); m != nil && strings.TrimSpace(strings.Split(rest, "\x00")[0]) == "" {
						toks[0].scope = m[1]
						toks[0].scopeAt = lead + strings.LastIndex(t, m[1])
						residue = ""
					}
				}
			}
			if residue == "" {
				return toks
			}
			// Among other words, a single word in backticks is a term
			// ("String (e.g. `quant`)"), not a path.
			var kept []cellTok
			for _, tok := range toks {
				if tok.strong {
					tok.embedded = true
					kept = append(kept, tok)
				}
			}
			return kept
		}
	}
	if m := mdLink.FindStringSubmatchIndex(t); m != nil {
		if nonFileName(t[m[2]:m[3]]) {
			return nil // a web page to consult, never a file of the workspace
		}
		return []cellTok{{path: t[m[2]:m[3]], at: lead + m[2], quoted: true, strong: strongPath(t[m[2]:m[3]])}}
	}
	if pathShaped(t, false) {
		return []cellTok{{path: t, at: lead, strong: true}}
	}
	// "a.md and b.md", "a.md, b.md": every part a path.
	if parts := joiners.Split(t, -1); len(parts) > 1 {
		var toks []cellTok
		off := 0
		for _, part := range parts {
			i := strings.Index(t[off:], part)
			if part == "" || i < 0 {
				continue
			}
			if !pathShaped(part, false) {
				toks = nil
				break
			}
			toks = append(toks, cellTok{path: part, at: lead + off + i, strong: true})
			off += i + len(part)
		}
		if len(toks) > 1 {
			return toks
		}
	}
	// "rules.md § Constraints", without backticks.
	if first, after, ok := strings.Cut(t, " "); ok && pathShaped(first, false) {
		if m := sectionMark.FindStringSubmatch(after); m != nil {
			return []cellTok{{path: first, at: lead, strong: true, scope: m[1], scopeAt: lead + strings.LastIndex(t, m[1])}}
		}
	}
	return nil
}

// cellResidue is what a cell says besides its paths (marked \x00), with
// the words that join paths and punctuation dropped: "" when the cell is
// only paths.
func cellResidue(rest string) string {
	r := strings.ReplaceAll(rest, "\x00", " ")
	r = joiners.ReplaceAllString(" "+r+" ", " ")
	r = strings.Trim(r, " \t()[]:.-–—*_|")
	if strings.IndexFunc(r, isLetterOrDigit) < 0 {
		return ""
	}
	return r
}

func isLetterOrDigit(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
}

// quotedPathShaped reports whether text that was in backticks is a path:
// as pathShaped, and also a name with spaces when it has a slash or an
// extension ("`My Notes.md`"); a lone extension or dot file (".bib") is
// not.
func quotedPathShaped(p string) bool {
	if p == "" || (strings.HasPrefix(p, ".") && !strings.ContainsAny(p, "/\\") && p != "." && !strings.HasPrefix(p, "..")) {
		return false
	}
	if pathShaped(p, true) {
		return true
	}
	if nonFileName(p) || len(strings.Fields(p)) > 6 {
		return false
	}
	bare, _ := withoutPlaceholders(p)
	return strings.ContainsAny(bare, "/\\") || extension.MatchString(strings.TrimSuffix(bare, "/"))
}

// strongPath reports whether p looks like a path on its own: a slash, an
// extension or a wildcard.
func strongPath(p string) bool {
	bare, _ := withoutPlaceholders(p)
	return strings.ContainsAny(bare, "/\\*") || extension.MatchString(strings.TrimSuffix(bare, "/"))
}
