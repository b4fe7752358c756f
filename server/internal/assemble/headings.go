package assemble

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// Scopes name headings in their authors' words: "§ 2 (chaîne de
// compilation)" for "## 2. Chaîne de compilation", "Verticals +
// compliance" for "## Verticals Served + Compliance Regime", "voice rules"
// for "## Voice Rules:". findHeading matches a name to a heading of a
// document, most literal first:
//
//  1. the heading's text or its slug, as written (markdown.FindHeading);
//  2. the same words, ignoring case, accents, punctuation, a leading
//     number and the way "and" is written ("+", "&", "et", "und", ...);
//  3. a section number alone ("§ 2", "Section 2.1", "2.") for the heading
//     numbered so;
//  4. a unique partial match: the one heading holding every word of the
//     name (ignoring small words), in order or not.
//
// It returns the heading's index, or -1 when none or several fit.
func findHeading(doc *markdown.Doc, name string) int {
	if i, ok := doc.FindHeading(name); ok {
		return i
	}
	want, num := headingWords(name)
	if len(want) == 0 && num == "" {
		return -1
	}
	if num != "" && len(want) == 0 {
		return uniqueHeading(doc, func(h markdown.Heading) bool {
			_, n := headingWords(h.Text)
			return n == num
		})
	}
	if i := uniqueHeading(doc, func(h markdown.Heading) bool {
		got, n := headingWords(h.Text)
		return equalStrings(got, want) && (num == "" || n == "" || n == num)
	}); i >= 0 {
		return i
	}
	sig := significant(want)
	if len(sig) == 0 {
		return -1
	}
	return uniqueHeading(doc, func(h markdown.Heading) bool {
		got, _ := headingWords(h.Text)
		return holdsAll(got, sig)
	})
}

// uniqueHeading returns the index of the one heading below the title that
// fits, or -1 when none or several do.
func uniqueHeading(doc *markdown.Doc, fits func(markdown.Heading) bool) int {
	found := -1
	for i, h := range doc.Headings {
		if h.Level == 1 && len(doc.Headings) > 1 {
			continue
		}
		if fits(h) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// sectionNumber matches a heading's or a scope's number: "§ 2", "2.",
// "2.1)", "Section 3", "Sección 4", "Partie 2".
var sectionNumber = regexp.MustCompile(`(?i)^\s*(?:§+|section|sections|sección|seção|secção|seccion|secao|abschnitt|chapter|chapitre|capítulo|part|partie|parte|teil)?\s*(\d+(?:\.\d+)*)\s*[.):\-–—]?\s*`)

// andWords are the ways contracts write "and".
var andWords = map[string]bool{"and": true, "et": true, "e": true, "y": true, "und": true, "&": true, "+": true}

// headingWords returns a heading's or a name's words, folded (lower case,
// no accents, no punctuation, "and" in any spelling dropped) and its
// leading number, if any.
func headingWords(s string) (words []string, num string) {
	s = strings.NewReplacer("*", " ", "_", " ", "`", " ", "\"", " ", "“", " ", "”", " ").Replace(s)
	if m := sectionNumber.FindStringSubmatchIndex(s); m != nil && m[2] >= 0 {
		rest := s[m[1]:]
		// A number followed by a word, or by nothing: a section number.
		num, s = s[m[2]:m[3]], rest
	}
	folded := fold(s)
	for _, w := range strings.FieldsFunc(folded, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '&'
	}) {
		if !andWords[w] {
			words = append(words, w)
		}
	}
	return words, num
}

// fold lowercases s and removes its accents ("Chaîne" gives "chaine").
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// smallWords carry no meaning of their own in a heading name.
var smallWords = map[string]bool{
	"the": true, "a": true, "an": true, "of": true, "to": true, "for": true, "in": true, "on": true, "with": true,
	"section": true, "sections": true, "only": true, "part": true,
	// Words that say what kind of text a part is rather than name it: "the
	// Untested surface table" is the section "Untested Surface".
	"table": true, "tables": true, "list": true, "lists": true, "guidance": true, "details": true,
	"info": true, "information": true, "overview": true,
	"le": true, "la": true, "les": true, "de": true, "des": true, "du": true, "d": true, "l": true,
	"o": true, "os": true, "as": true, "do": true, "da": true, "dos": true, "das": true,
	"el": true, "los": true, "del": true, "der": true, "die": true, "den": true, "von": true,
}

// vagueWords qualify a part without naming it ("Relevant sections", "the
// section concerned"): a name of these alone names no heading.
var vagueWords = map[string]bool{
	"relevant": true, "concerned": true, "concernee": true, "concerne": true, "pertinent": true, "pertinente": true,
	"applicable": true, "current": true, "key": true, "main": true, "important": true, "needed": true,
	"necessary": true, "related": true, "existing": true, "latest": true, "recent": true, "most": true,
	"as": true, "appropriate": true, "matching": true, "selected": true, "corresponding": true,
	"relevante": true, "relevantes": true, "correspondante": true, "correspondant": true, //nolint:misspell // French words
}

func significant(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !smallWords[w] && !vagueWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// holdsAll reports whether every word of want is among got (a word also
// matches its plural or singular: "vertical" and "verticals").
func holdsAll(got, want []string) bool {
	for _, w := range want {
		found := false
		for _, g := range got {
			if g == w || strings.TrimSuffix(g, "s") == strings.TrimSuffix(w, "s") {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
