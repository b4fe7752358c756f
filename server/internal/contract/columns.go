package contract

import (
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// Header words that say what a column holds, in the languages contracts
// are written in. They only break ties: the path column is found by the
// shape of its cells first.
var (
	pathHeaderWords = set(
		"file", "files", "path", "paths", "location", "filename", "input", "output", "where",
		"arquivo", "arquivos", "ficheiro", "ficheiros", "caminho", "localização", "localizacao", "local",
		"archivo", "archivos", "ruta", "ubicación", "ubicacion",
		"fichier", "fichiers", "chemin", "emplacement",
		"datei", "dateien", "pfad", "ort")
	layerHeaderWords = set("layer", "layers", "camada", "capa", "couche", "ebene", "nível", "nivel", "niveau")
	scopeHeaderWords = set(
		"section", "sections", "scope", "load",
		"seção", "secao", "secção", "seções", "escopo", "trecho", "parte", "partes",
		"sección", "seccion", "alcance",
		"portée", "partie", "abschnitt", "bereich", "umfang")
	sourceHeaderWords = set(
		"source", "from", "type", "kind", "origin",
		"fonte", "origem", "tipo", "fuente", "origen", "quelle", "herkunft", "art")
	whyHeaderWords = set(
		"why", "use", "purpose", "notes", "note", "description", "reason", "what",
		"porquê", "porque", "quê", "motivo", "uso", "propósito", "finalidade", "descrição", "descricao",
		"razón", "razon", "pourquoi", "usage", "warum", "zweck", "beschreibung")
	nameHeaderWords = set(
		"artifact", "artefact", "name", "what", "deliverable", "output",
		"artefato", "artefacto", "entregável", "nome", "nombre", "entregable", "livrable", "nom", "ergebnis", "name")
	formatHeaderWords = set(
		"format", "type", "purpose", "notes", "description", "contents",
		"formato", "tipo", "propósito", "descrição", "descripción", "contenu", "beschreibung")
)

// layerCell matches a layer cell: "3", "L4", "Layer 3", "Camada 4 (trabalho)".
var layerCell = regexp.MustCompile(`(?i)^\s*(?:layer|camada|capa|couche|ebene|n[ií]vel)?\s*(L?\d+)\b`)

// columnShape scores, for each column, how much its cells look like
// paths: a cell that is a path that looks like one on its own (a slash,
// an extension) counts two; such a path among other words, or a single
// word in backticks, one.
func columnShape(t *markdown.Table) []int {
	n := make([]int, len(t.Header))
	for _, row := range t.Rows {
		for i := range n {
			if i >= len(row) {
				continue
			}
			best := 0
			for _, tok := range cellPaths(row[i].Text) {
				score := 1
				if tok.strong && !tok.embedded {
					score = 2
				}
				best = max(best, score)
			}
			n[i] += best
		}
	}
	return n
}

// headerColumn returns the first column (other than those in skip) whose
// header holds one of the words, or -1.
func headerColumn(header []markdown.Line, ws map[string]bool, skip ...int) int {
	for i, h := range header {
		if !contains(skip, i) && hasWord(h.Text, ws) {
			return i
		}
	}
	return -1
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// pathColumn picks the column that holds paths: the one with the most
// path-shaped cells, a header naming a file breaking ties; with no
// path-shaped cell at all, the column whose header names a file (or -1).
func pathColumn(t *markdown.Table, preferred map[string]bool) int {
	shape := columnShape(t)
	named := headerColumn(t.Header, preferred)
	best, bestN := -1, 0
	for i, n := range shape {
		if n > bestN || (n == bestN && n > 0 && i == named) {
			best, bestN = i, n
		}
	}
	if best < 0 {
		return named
	}
	return best
}

// inputColumns says which column of an Inputs table holds what.
type inputColumns struct {
	path, layer, scope, source, why int
}

func findInputColumns(t *markdown.Table) inputColumns {
	c := inputColumns{path: pathColumn(t, pathHeaderWords), layer: -1, scope: -1, source: -1, why: -1}
	c.layer = headerColumn(t.Header, layerHeaderWords, c.path)
	if c.layer < 0 {
		c.layer = layerColumnByCells(t, c.path)
	}
	c.scope = headerColumn(t.Header, scopeHeaderWords, c.path, c.layer)
	c.source = headerColumn(t.Header, sourceHeaderWords, c.path, c.layer, c.scope)
	c.why = headerColumn(t.Header, whyHeaderWords, c.path, c.layer, c.scope, c.source)
	byPosition(len(t.Header), c.path, &c.source, &c.why, c.layer, c.scope)
	return c
}

// byPosition gives the columns no header word names the template's
// positions: the first one before the path column becomes *before (where
// the file comes from, what it is), the first one after it *after (why,
// its format), unless a header already named them. taken are the columns
// already assigned.
func byPosition(n, path int, before, after *int, taken ...int) {
	for i := 0; i < n; i++ {
		if i == path || i == *before || i == *after || contains(taken, i) {
			continue
		}
		switch {
		case i < path && *before < 0:
			*before = i
		case i > path && *after < 0:
			*after = i
		}
	}
}

// layerColumnByCells finds a column whose every non-empty cell is a layer
// ("3", "Layer 4"), for tables whose layer header is in another language.
func layerColumnByCells(t *markdown.Table, skip int) int {
	for i := range t.Header {
		if i == skip {
			continue
		}
		n := 0
		for _, row := range t.Rows {
			if i >= len(row) || strings.TrimSpace(row[i].Text) == "" {
				continue
			}
			if !layerCell.MatchString(row[i].Text) {
				n = -1
				break
			}
			n++
		}
		if n > 0 {
			return i
		}
	}
	return -1
}

// outputColumns says which column of an Outputs table holds what.
type outputColumns struct {
	path, name, format int
}

func findOutputColumns(t *markdown.Table) outputColumns {
	c := outputColumns{path: pathColumn(t, pathHeaderWords), name: -1, format: -1}
	c.name = headerColumn(t.Header, nameHeaderWords, c.path)
	c.format = headerColumn(t.Header, formatHeaderWords, c.path, c.name)
	byPosition(len(t.Header), c.path, &c.name, &c.format)
	return c
}
