package contract

import (
	"path"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// Authors name the files a stage writes wherever they write about them,
// not only in an Outputs list or table: on a bold label line under the
// title (`**Output:** `output/x.md``), in a key/value table (`|
// **Outputs** | a.json, b.md |`), in a sentence ("Write to
// `output/x.md`:"). When the Outputs notation names no file, these are
// read as the outputs, so the run writes what the author asked for.

// outputLabel matches a line that opens with an Outputs label: "**Output:**
// `x`", "Outputs: `a`, `b`", "__Deliverables__: ...". The rest is group 1.
var outputLabel = regexp.MustCompile(`(?i)^\s*[*_]{0,2}\s*(?:outputs?|deliverables?|produces|sa[ií]das?|salidas?|sorties?|ausgaben?)\s*[*_]{0,2}\s*:\s*[*_]{0,2}\s*(.*)$`)

// linkTarget matches a Markdown link anywhere in a line; group 1 is its target.
var linkTarget = regexp.MustCompile(`\[[^\]]*\]\(\s*<?([^)\s>]+)>?\s*\)`)

// writeWords are the verbs that, before a path in output/, say the stage
// writes it ("Write to `output/menu.md`", "save the list as ...").
var writeWords = set(
	"write", "writes", "writing", "written", "save", "saves", "saved", "saving", "produce", "produces",
	"create", "creates", "generate", "generates", "export", "exports", "store", "stores", "output",
	"escreva", "escrever", "salve", "salvar", "gere", "gerar", "grave", "gravar",
	"escribe", "escribir", "guarda", "guardar", "genera", "generar",
	"écris", "écrire", "écrivez", "enregistre", "enregistrer", "génère", "générer",
	"schreibe", "schreiben", "speichere", "speichern", "erzeuge", "erzeugen")

// namedOutputs reads the outputs a contract names outside its Outputs
// notation, when that names none: label lines, key/value rows, then
// sentences that write into output/.
func (p *parser) namedOutputs(doc *markdown.Doc, secs []markdown.Section, kinds []string) {
	blocks := doc.BlocksBefore(2)
	for i, s := range secs {
		if kinds[i] != KindInputs {
			blocks = append(blocks, s.Blocks...)
		}
	}
	for _, b := range blocks {
		switch b.Kind {
		case markdown.BlockParagraph, markdown.BlockList:
			for _, l := range b.Lines {
				if m := outputLabel.FindStringSubmatchIndex(l.Text); m != nil {
					p.namedIn(l, m[2], true)
				}
			}
		case markdown.BlockTable:
			p.keyValueOutputs(b.Table)
		}
	}
	if !p.noOutputs() {
		return
	}
	for _, b := range blocks {
		if b.Kind != markdown.BlockParagraph && b.Kind != markdown.BlockList {
			continue
		}
		for _, l := range b.Lines {
			p.writtenIn(l)
		}
	}
}

// namedIn takes the paths in backticks and links of l.Text from byte from
// on as outputs: a bare file name is the stage's output/ file; a path
// elsewhere is an output outside output/ when any is (anywhere says the
// author named it on a label line, not in a sentence).
func (p *parser) namedIn(l markdown.Line, from int, anywhere bool) {
	for _, tok := range linePaths(l.Text, from) {
		p.namedOutput(Output{Name: path.Base(tok.path), PathRange: l.Sub(tok.at, len(tok.path)), Range: l.Range}, tok.path, anywhere)
	}
}

// namedOutput adds the output o that the author named as file: a bare
// file name is the stage's output/ file; a path elsewhere is an output
// outside output/ when outside says one may be.
func (p *parser) namedOutput(o Output, file string, outside bool) {
	file = p.stageRelative(file)
	if fileNameShaped(file) {
		file = path.Join("output", file)
	}
	if !outputFolder(file) {
		if outside {
			p.external(o, file)
		}
		return
	}
	o.Path = file
	if !p.hasOutput(path.Clean(file)) {
		p.addOutput(o)
	}
}

// linePaths are the paths a line names in backticks or as link targets,
// from byte from on, in order.
func linePaths(text string, from int) []cellTok {
	var toks []cellTok
	rest := text[from:]
	for _, m := range backtickSpan.FindAllStringSubmatchIndex(rest, -1) {
		inner := strings.TrimSpace(rest[m[2]:m[3]])
		if quotedPathShaped(inner) && !folderShaped(inner) {
			toks = append(toks, cellTok{path: inner, at: from + m[2] + strings.Index(rest[m[2]:m[3]], inner), quoted: true})
		}
	}
	for _, m := range linkTarget.FindAllStringSubmatchIndex(rest, -1) {
		target := rest[m[2]:m[3]]
		if !strings.Contains(target, "://") && !strings.HasPrefix(target, "#") && quotedPathShaped(target) && !folderShaped(target) {
			toks = append(toks, cellTok{path: target, at: from + m[2], quoted: true})
		}
	}
	return toks
}

// keyValueOutputs reads a table of the author's whose rows are key and
// value ("| **Outputs** | ledger.csv, summary.md |"): the value of an
// Outputs row names the stage's files.
func (p *parser) keyValueOutputs(t *markdown.Table) {
	rows := append([][]markdown.Line{t.Header}, t.Rows...)
	for _, row := range rows {
		if len(row) < 2 || !outputLabel.MatchString(strings.Trim(strings.TrimSpace(row[0].Text), "*_")+":") {
			continue
		}
		cell := row[1]
		for _, tok := range cellPaths(cell.Text) {
			p.namedOutput(Output{Name: path.Base(tok.path), PathRange: cell.Sub(tok.at, len(tok.path)), Range: rowRange(row)}, tok.path, true)
		}
	}
}

// writtenIn takes a path in output/ that a sentence says the stage writes
// ("Write to `output/menu.md`:", "save the list as `output/list.md`"):
// a verb of writing comes before it in the same sentence.
func (p *parser) writtenIn(l markdown.Line) {
	for _, tok := range linePaths(l.Text, 0) {
		if !strings.HasPrefix(path.Clean(tok.path), "output/") {
			continue
		}
		clause := l.Text[:tok.at]
		if i := strings.LastIndexAny(clause, ".;!?"); i >= 0 && i+1 < len(clause) && clause[i+1] == ' ' {
			clause = clause[i+1:]
		}
		if !hasWord(clause, writeWords) {
			continue
		}
		o := Output{Name: path.Base(tok.path), Path: tok.path, PathRange: l.Sub(tok.at, len(tok.path)), Range: l.Range}
		if !p.hasOutput(path.Clean(tok.path)) {
			p.addOutput(o)
		}
	}
}
