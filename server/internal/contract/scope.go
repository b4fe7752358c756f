package contract

import (
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// quotedHeading matches a heading name in quotes in a Section/Scope cell.
var quotedHeading = regexp.MustCompile(`["“”]([^"“”]+)["“”]`)

// parenthesis matches a parenthetical remark inside a scope cell.
var parenthesis = regexp.MustCompile(`\s*\([^)]*\)`)

// wholeFileWords are the words a "load everything" scope is made of
// ("Full file", "Entire document", "Arquivo completo"); at least one of
// wholeMarkers must be among them.
var (
	wholeFileWords = set("full", "whole", "entire", "complete", "all", "file", "files", "content", "contents",
		"document", "doc", "folder", "folders", "everything", "the", "of", "it", "text", "read",
		"arquivo", "pasta", "completo", "inteiro", "tudo", "conteúdo", "documento", "todo", "o", "a", "el", "entero", "archivo",
		"fichier", "entier", "tout", "le", "la", "datei", "ganze", "vollständig", "die", "das")
	wholeMarkers = set("full", "whole", "entire", "complete", "all", "everything",
		"completo", "completa", "inteiro", "inteira", "tudo", "todo", "toda", "todos", "todas", "entero", "entera",
		"complet", "complète", "entier", "entière", "intégral", "intégrale", "tout", "toute", "tous",
		"ganze", "ganzer", "gesamte", "vollständig", "komplett", "alle", "tutto", "intero")
	// tableWords say a scope names part of a table (a column, a row), not
	// a heading: the whole file is loaded.
	tableWords = set("column", "columns", "row", "rows", "field", "fields", "colonne", "colonnes", "ligne", "lignes",
		"coluna", "colunas", "linha", "linhas", "columna", "columnas", "fila", "filas", "spalte", "spalten", "zeile", "zeilen") //nolint:misspell // Spanish words
	pathOnlyPhrases = []string{"path only", "only the path", "path", "reference only", "link only",
		"caminho apenas", "apenas o caminho", "solo la ruta", "chemin seulement", "nur pfad"}
	// throughWords join two headings into a range: "A" through "B".
	throughWords = set("through", "thru", "to", "until", "até", "hasta", "jusqu'à", "bis", "a")
	// nameNoise are words around heading names that are not part of them.
	nameNoise = set("section", "sections", "heading", "headings", "only", "part", "parts",
		"seção", "seções", "secção", "apenas", "somente", "sección", "secciones", "solo", "solamente",
		"abschnitt", "nur", "partie", "seulement")
)

// nameSeparators split an unquoted scope into heading names.
var nameSeparators = regexp.MustCompile(`\s*(?:,|;|\+|&|\band\b|\be\b|\by\b|\bet\b|\bund\b)\s*`)

// unquotedThrough splits "A through B" written without quotes.
var unquotedThrough = regexp.MustCompile(`(?i)^(.+?)\s+(?:through|thru|até|hasta|bis)\s+(.+)$`)

// scope reads a Section/Scope cell: `Full file`, `"A" through "B"`,
// `"A" and "B"`, headings named without quotes (`## A`, `A + B`,
// `Tone section`), or an instruction icm cannot apply.
func (p *parser) scope(c markdown.Line) *Scope {
	raw := strings.TrimSpace(c.Text)
	// Remarks in parentheses ("(if exists)", "(full)") qualify the scope;
	// they do not name headings.
	text := strings.TrimSpace(parenthesis.ReplaceAllString(raw, ""))
	low := strings.ToLower(strings.Trim(text, "`*_ .,"))
	switch low {
	case "", "-", "—", "–", "n/a", "na", "none":
		return nil
	}
	if wholeFile(low) {
		return nil
	}
	s := &Scope{Raw: raw, Range: c.Range}
	for _, ph := range pathOnlyPhrases {
		if low == ph {
			s.PathOnly = true
			return s
		}
	}
	if quoted := quotedHeading.FindAllStringSubmatchIndex(text, -1); len(quoted) > 0 && !hasWord(quotedHeading.ReplaceAllString(text, " "), tableWords) {
		for _, q := range quoted {
			s.Headings = append(s.Headings, strings.TrimSpace(text[q[2]:q[3]]))
		}
		if len(quoted) == 2 {
			between := strings.Trim(text[quoted[0][1]:quoted[1][0]], " ")
			s.Through = throughWords[strings.ToLower(between)] || strings.Contains(strings.ToLower(text), " through ")
		}
		return s
	}
	// Unquoted: the names it mentions are headings when the file has every
	// one of them; icm decides that when it reads the file.
	s.FreeText = true
	if hasWord(text, tableWords) {
		s.Table = true // a column or a row of a table: the whole file
		return s
	}
	s.Names, s.Through = headingNames(text)
	return s
}

// wholeFile reports whether a scope says "all of it" in so many words, in
// any of the languages contracts are written in: it opens with "all",
// "full", "entire" ("Full table", "All fields", "All .asp files"), ends
// with one in a short phrase ("Fichier complet"), or is made of such words
// only.
func wholeFile(low string) bool {
	ws := words(low)
	if len(ws) == 0 || quotedHeading.MatchString(low) {
		return false
	}
	if wholeMarkers[ws[0]] || (len(ws) <= 3 && wholeMarkers[ws[len(ws)-1]]) {
		return true
	}
	marker := false
	for _, w := range ws {
		if !wholeFileWords[w] {
			return false
		}
		marker = marker || wholeMarkers[w]
	}
	return marker
}

// headingNames splits an unquoted scope into the heading names it may
// mean: "`## Avatar`, `## Current Pain`" gives Avatar and Current Pain;
// "Tone section" gives Tone; "A through B" gives A and B as a range.
func headingNames(text string) (names []string, through bool) {
	t := strings.NewReplacer("`", "", "*", "", "_", " ").Replace(text)
	parts := nameSeparators.Split(t, -1)
	if m := unquotedThrough.FindStringSubmatch(t); m != nil && !strings.ContainsAny(t, ",;+&") {
		parts, through = []string{m[1], m[2]}, true
	}
	for _, part := range parts {
		n := cleanName(part)
		if n != "" {
			names = append(names, n)
		}
	}
	if len(names) != 2 {
		through = false
	}
	return names, through
}

// cleanName strips heading marks and the words around a heading name.
func cleanName(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "#"))
	fields := strings.Fields(s)
	for len(fields) > 0 && nameNoise[strings.ToLower(strings.Trim(fields[0], ".:"))] {
		fields = fields[1:]
	}
	for len(fields) > 0 && nameNoise[strings.ToLower(strings.Trim(fields[len(fields)-1], ".:"))] {
		fields = fields[:len(fields)-1]
	}
	return strings.Trim(strings.Join(fields, " "), ".:")
}

// Candidates returns the heading lists an unquoted scope may mean, the
// most literal first: the whole text as one heading ("Voice and Tone"),
// then the names it lists ("Voice", "Tone").
func (s *Scope) Candidates() [][]string {
	if s == nil || !s.FreeText || s.Table {
		return nil
	}
	var out [][]string
	whole := cleanName(strings.NewReplacer("`", "", "*", "", "_", " ").Replace(parenthesis.ReplaceAllString(s.Raw, "")))
	if whole != "" && (len(s.Names) != 1 || s.Names[0] != whole) {
		out = append(out, []string{whole})
	}
	if len(s.Names) > 0 {
		out = append(out, s.Names)
	}
	return out
}
