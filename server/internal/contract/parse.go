package contract

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/textnorm"
)

// Budgets from the method: a contract stays under 80 lines, a reference
// file under 200.
const (
	MaxContractLines  = 80
	MaxReferenceLines = 200
)

// MaxContractBytes is the largest contract parsed: sixteen times the
// largest contract of the public ICM template, and small enough that the
// slowest Markdown within it parses in milliseconds. A larger one is a
// finding, not a parse.
const MaxContractBytes = 64 << 10

// Section kinds icm knows.
const (
	KindInputs      = "inputs"
	KindTools       = "tools"
	KindForEach     = "for-each"
	KindProcess     = "process"
	KindOutputs     = "outputs"
	KindModel       = "model"
	KindVerify      = "verify"
	KindScript      = "script"
	KindGate        = "gate"
	KindCheckpoints = "checkpoints"
	KindAudit       = "audit"
	// KindThresholds holds a critic stage's pass thresholds; the critic
	// reads the section's text, check validates it.
	KindThresholds = "thresholds"
)

// sectionKinds maps normalised heading names to the sections icm reads,
// in English and in the other languages contracts are written in.
var sectionKinds = map[string]string{
	"inputs": KindInputs, "input": KindInputs,
	"entradas": KindInputs, "entrada": KindInputs, "insumos": KindInputs, "entrées": KindInputs, "eingaben": KindInputs,
	"tools": KindTools, "tool": KindTools, "ferramentas": KindTools, "herramientas": KindTools, "outils": KindTools, "werkzeuge": KindTools,
	"for each": KindForEach, "foreach": KindForEach, "for-each": KindForEach,
	"process": KindProcess, "processo": KindProcess, "proceso": KindProcess, "processus": KindProcess, "prozess": KindProcess, "ablauf": KindProcess,
	"outputs": KindOutputs, "output": KindOutputs,
	"saídas": KindOutputs, "saída": KindOutputs, "saidas": KindOutputs, "saida": KindOutputs, "salidas": KindOutputs, "salida": KindOutputs,
	"sorties": KindOutputs, "sortie": KindOutputs, "ausgaben": KindOutputs, "ausgabe": KindOutputs,
	"model":       KindModel,
	"verify":      KindVerify,
	"script":      KindScript,
	"gate":        KindGate,
	"checkpoints": KindCheckpoints, "checkpoint": KindCheckpoints, "pontos de verificação": KindCheckpoints,
	"audit": KindAudit, "auditoria": KindAudit, "auditoría": KindAudit,
	"thresholds": KindThresholds,
}

// headingNoise strips what may surround a section name: a number
// ("2. Inputs"), a remark in parentheses ("Verify (cross-stage audit)").
var headingNoise = regexp.MustCompile(`^\s*\d+[.)]?\s+|\s*\([^)]*\)`)

func sectionKind(name string) string {
	n := strings.Trim(name, " :#*_")
	if strings.Contains(n, "(") || (n != "" && n[0] >= '0' && n[0] <= '9') {
		n = strings.Trim(headingNoise.ReplaceAllString(n, ""), " :#*_")
	}
	return sectionKinds[strings.ToLower(strings.Join(strings.Fields(n), " "))]
}

// parser carries one parse.
type parser struct {
	src []byte
	c   *Contract
	// blocks are the text's optional blocks ({{?NAME}} … {{/NAME}}).
	blocks []Block
	// unknown holds the notes on sections icm does not use, added at the
	// end unless those sections turn out to be the instructions.
	unknown []Finding
	// references is set while a References section is read as the
	// inputs: its entries name reference files, with no layer of their own.
	references bool
	// foreignOutputs is set while a section of the author's own (Produced
	// Files) is read as the outputs.
	foreignOutputs bool
	// emptyOutputs is the first Outputs section that named no file.
	emptyOutputs *markdown.Section
	// typos are the kinds of section a heading misspells (Outptus).
	typos map[string]bool
	// rejectedOutputs counts Outputs entries that name a path icm does
	// not take as an output (outside output/): the section names files.
	rejectedOutputs int
}

// Options change how a contract is read.
type Options struct {
	// Vars are the workspace's setup-time variables ([vars] in
	// config.toml): they decide which optional blocks are kept and fill
	// `{{NAME}}` in paths.
	Vars Vars
}

// Parse parses a contract. file is its absolute path (recorded in findings).
// It never fails: problems become findings on the returned Contract.
//
// The text is read as the model would get it: a UTF-8 byte order mark is
// dropped and CRLF line endings are read as LF, so no text taken from the
// contract carries either; every range still points into src as given,
// so positions match the file on disk and the editor's buffer.
func Parse(file string, src []byte) *Contract { return ParseWith(file, src, Options{}) }

// ParseWith is Parse with options. YAML front matter at the top is
// metadata (Contract.FrontMatter), and optional blocks are applied: what
// a dropped block or a marker held is never read, and ranges still point
// into src as given.
func ParseWith(file string, src []byte, opts Options) *Contract {
	text, offsets := textnorm.Map(src)
	c := &Contract{File: file, Lines: countLines(text), vars: opts.Vars}
	text, c.FrontMatter = frontMatter(text)
	text, blocks := opts.Vars.Blocks(text)
	p := &parser{src: text, c: c, blocks: blocks}
	p.parse()
	remapRanges(p.c, offsets)
	return p.c
}

// frontMatter blanks a YAML front matter block at the top of src (a "---"
// line, key lines, a closing "---" or "..." line) in a copy, and returns
// the copy and the block's text; src as it is when it has none.
func frontMatter(src []byte) ([]byte, string) {
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return src, ""
	}
	start := bytes.IndexByte(src, '\n') + 1
	for i, n := start, 0; i < len(src) && n < maxFrontMatterLines; n++ {
		j := bytes.IndexByte(src[i:], '\n')
		end := len(src)
		if j >= 0 {
			end = i + j
		}
		line := strings.TrimRight(string(src[i:end]), "\r \t")
		if line == "---" || line == "..." {
			out := append([]byte(nil), src...)
			blank(out[:end])
			return out, strings.TrimSpace(string(src[start:i]))
		}
		if j < 0 {
			break
		}
		i = end + 1
	}
	return src, ""
}

// maxFrontMatterLines bounds how far icm looks for the end of front matter.
const maxFrontMatterLines = 200

func (p *parser) parse() {
	c := p.c
	defer func() {
		if c.Inputs == nil {
			c.Inputs = []Input{}
		}
		if c.Outputs == nil {
			c.Outputs = []Output{}
		}
		if c.Findings == nil {
			c.Findings = []Finding{}
		}
	}()
	if len(p.src) > MaxContractBytes {
		p.add(document.Range{}, Error, CodeContractTooLarge, fmt.Sprintf("the contract is too large to read (%d KB; icm reads contracts up to %d KB, and the method keeps them under %d lines): move the material into reference files", len(p.src)>>10, MaxContractBytes>>10, MaxContractLines))
		return
	}
	doc := markdown.Parse(p.src)
	if doc.Err != nil {
		at := document.Range{}
		var le *markdown.LimitError
		if errors.As(doc.Err, &le) && le.Line > 0 {
			at = lineRange(p.src, le.Line-1)
		}
		p.add(at, Error, CodeTooDeep, "the contract cannot be read: "+doc.Err.Error())
		return
	}
	if title, ok := doc.Title(); ok {
		c.Title = strings.TrimSpace(stripPrefixFold(title.Text, "stage:"))
		c.TitleRange = title.TextRange
	} else {
		p.add(document.Range{}, Warning, CodeNoTitle, "the contract has no title; start it with `# Stage: NAME`")
	}
	c.Summary = strings.TrimSpace(lf(p.blocksText(doc.BlocksBefore(2))))

	seen := map[string]bool{}
	seenIn := map[string]int{}
	secs := doc.Sections(2)
	kinds := make([]string, len(secs))
	refsAsInputs := true
	hasOutputs := false
	for i, s := range secs {
		kinds[i] = sectionKind(s.Heading.Text)
		refsAsInputs = refsAsInputs && kinds[i] != KindInputs
		hasOutputs = hasOutputs || kinds[i] == KindOutputs
	}
	produced, readAsInputs := -1, -1
	for i, s := range secs {
		switch {
		case kinds[i] != "":
		case refsAsInputs && strings.EqualFold(strings.TrimSpace(s.Heading.Text), "read"):
			// The READ / … / WRITE vocabulary: READ lists the inputs and
			// WRITE the outputs, when the contract has no sections of
			// those names.
			kinds[i], refsAsInputs, readAsInputs = KindInputs, false, i
		case !hasOutputs && strings.EqualFold(strings.TrimSpace(s.Heading.Text), "write"):
			kinds[i], hasOutputs = KindOutputs, true
		case !hasOutputs && outputsHeading(s.Heading.Text):
			// "Output Files (living documents)": the Outputs section of a
			// contract that has no other.
			kinds[i], hasOutputs = KindOutputs, true
		case produced < 0 && producedHeading(s.Heading.Text):
			produced = i
		}
	}
	for i, s := range secs {
		kind := kinds[i]
		// Entries of a READ section name no layer in any notation: no
		// note says so of each (as of a References section's).
		p.references = i == readAsInputs
		if kind == "" && refsAsInputs && referenceSection(s.Heading.Text) {
			// A contract with no Inputs section that lists its reference
			// files under a heading of their own ("Stage-Specific
			// References"): those are its inputs.
			kind, p.references = KindInputs, true
		}
		sec := Section{
			Name:    s.Heading.Text,
			Kind:    kind,
			Heading: s.Heading.Line,
			Range:   s.Range,
			Text:    p.text(s.Body),
		}
		if kind == "" || kind == KindCheckpoints || kind == KindAudit || kind == KindVerify {
			sec.Table = firstTable(s)
		}
		c.Sections = append(c.Sections, sec)
		if i == produced {
			// Read below, once it is known whether the Outputs section
			// names any file.
			continue
		}
		if kind == "" {
			if IsReviewHeading(s.Heading.Text) {
				p.unknown = append(p.unknown, Finding{File: c.File, Range: s.Heading.TextRange, Severity: Info, Code: CodeReviewGate,
					Message: fmt.Sprintf("section %q is %s", s.Heading.Text, ReviewGateRole)})
				continue
			}
			if !p.misspelt(s) {
				p.unknown = append(p.unknown, Finding{File: c.File, Range: s.Heading.TextRange, Severity: Info, Code: CodeUnknownSection,
					Message: fmt.Sprintf("section %q is not one of icm's own; the model reads it as written", s.Heading.Text)})
			}
			continue
		}
		block := p.blockOf(s.Range.Start)
		if seen[kind] {
			if block != seenIn[kind] && (block >= 0 || seenIn[kind] >= 0) {
				// Alternative optional blocks ({{?A}} … {{/A}}, {{?B}} …)
				// may each hold the section: not a duplicate; both are read.
				p.alternative(kind, s)
				continue
			}
			p.add(s.Heading.TextRange, Error, CodeDuplicateSection,
				fmt.Sprintf("a second %q section; icm reads only the first, merge them", s.Heading.Text))
			continue
		}
		seen[kind], seenIn[kind] = true, block
		p.section(kind, s)
	}
	p.producedFiles(secs, produced, seen)
	if p.noOutputs() {
		p.namedOutputs(doc, secs, kinds)
	}
	p.emptyOutputsNote()
	p.requireSections(seen)
	p.c.workingWhenWritten()
	if !p.c.instructionsFallback() {
		p.c.Findings = append(p.c.Findings, p.unknown...)
	}
	p.checksNeedTools()
	if c.Lines > MaxContractLines {
		p.add(lineRange(p.src, MaxContractLines), Warning, CodeContractTooLong,
			fmt.Sprintf("the contract has %d lines; the method keeps a contract under %d lines: move detail into a reference file", c.Lines, MaxContractLines))
	}
}

// checksNeedTools flags a `sources-from-tools` check in a stage that
// offers no tools: every URL it writes would fail the check.
func (p *parser) checksNeedTools() {
	if len(p.c.Tools.Allowed()) > 0 {
		return
	}
	for _, v := range p.c.Verify {
		if v.Kind == CheckSourcesTools {
			p.add(v.Range, Warning, CodeBadVerify, "sources-from-tools needs tools: this stage offers none, so every URL in its output would fail the check (use `sources`, or add a ## Tools section)")
		}
	}
}

// referenceWords name a section listing a stage's reference files.
var referenceHeadings = set("references", "reference", "referências", "referencias", "références", "referenzen", "riferimenti")

// referenceSection reports whether a heading names a list of reference
// files: its last word is "References" (in any of the languages above).
func referenceSection(name string) bool {
	ws := words(name)
	return len(ws) > 0 && referenceHeadings[ws[len(ws)-1]]
}

func (p *parser) section(kind string, s markdown.Section) {
	switch kind {
	case KindInputs:
		p.inputs(s)
	case KindTools:
		p.tools(s)
	case KindForEach:
		p.forEach(s)
	case KindProcess:
		p.c.Process = p.text(s.Body)
		p.c.ProcessRange = s.Body
		if p.c.Process == "" {
			p.add(s.Heading.TextRange, Error, CodeEmptySection, "the Process section is empty; write the instructions the model should follow")
		}
	case KindOutputs:
		p.outputs(s)
	case KindModel:
		p.model(s)
	case KindVerify:
		p.verify(s)
	case KindScript:
		p.script(s)
	case KindGate:
		p.gate(s)
	}
}

// outputsHeading reports whether a heading that is no section of icm's
// starts with the word Output(s) ("Output Files (living documents)").
func outputsHeading(name string) bool {
	ws := words(name)
	return len(ws) > 1 && (ws[0] == "output" || ws[0] == "outputs")
}

// producedHeadings name a section listing the files a stage writes.
var producedHeadings = splitPhrases("produced files", "files produced", "files written", "output files", "deliverables")

// producedHeading reports whether a heading names the files a stage
// writes ("Produced Files").
func producedHeading(name string) bool {
	ws := words(name)
	for _, ph := range producedHeadings {
		if len(ws) >= len(ph) && equalWords(ws[:len(ph)], ph) {
			return true
		}
	}
	return false
}

// producedFiles reads a "Produced Files" section as the outputs when the
// Outputs section names none (it holds a template of the document) or
// there is none; otherwise it is a section of the author's, noted as
// such.
func (p *parser) producedFiles(secs []markdown.Section, produced int, seen map[string]bool) {
	if produced >= 0 {
		s := secs[produced]
		if p.noOutputs() {
			// The author's list: an arrow points at who reads the file
			// ("→ designer/presenter") unless it points into output/.
			p.foreignOutputs = true
			p.outputEntries(s)
			p.foreignOutputs = false
			p.c.Sections[produced].Kind = KindOutputs
			seen[KindOutputs] = true
		} else {
			p.unknown = append(p.unknown, Finding{File: p.c.File, Range: s.Heading.TextRange, Severity: Info, Code: CodeUnknownSection,
				Message: fmt.Sprintf("section %q is not one of icm's own; the model reads it as written", s.Heading.Text)})
		}
	}
}

// emptyOutputsNote says once that the Outputs section names no file, when
// nothing else in the contract does either.
func (p *parser) emptyOutputsNote() {
	e := p.emptyOutputs
	if e == nil || !p.noOutputs() {
		return
	}
	if strings.TrimSpace(p.text(e.Body)) == "" {
		p.add(e.Heading.TextRange, Error, CodeEmptySection, "the Outputs section names no file; write `- notes.md -> output/`")
		return
	}
	// The section holds something (a template, a file tree) icm does not
	// read as entries: a warning, since which files it means rests on the
	// author's layout, but icm has no file to write the answer to.
	f := Finding{File: p.c.File, Range: e.Heading.TextRange, Severity: Warning, Code: CodeEmptySection, Basis: BasisReading,
		Message: "the Outputs section names no file icm can read (it holds no list or table of files), so icm has no file to write the stage's answer to"}
	p.c.Findings = append(p.c.Findings, f)
}

// noOutputs reports whether the contract names no output of any kind.
func (p *parser) noOutputs() bool {
	return len(p.c.Outputs) == 0 && len(p.c.OtherOutputs) == 0 && len(p.c.ExternalOutputs) == 0 && p.rejectedOutputs == 0
}

func (p *parser) requireSections(seen map[string]bool) {
	at := p.c.TitleRange
	if !seen[KindProcess] && p.c.Script == nil {
		// A misspelt heading has its own finding, which names the section.
		switch names := p.c.instructionNames(); {
		case len(names) > 0:
			p.c.FallbackInstructions = true
			if !p.typos[KindProcess] {
				p.add(at, Info, CodeMissingSection, fmt.Sprintf("the contract has no Process section; icm gives the model its other sections (%s) as the instructions", strings.Join(names, ", ")))
			}
		case !p.typos[KindProcess]:
			p.add(at, Error, CodeMissingSection, "the contract has no `## Process` section (or `## Script`); say what the stage does")
		}
	}
	if !seen[KindOutputs] && p.noOutputs() && !p.typos[KindOutputs] {
		p.add(at, Error, CodeMissingSection, "the contract has no `## Outputs` section; name the file it writes, e.g. `- notes.md -> output/`")
		p.c.Findings[len(p.c.Findings)-1].Data = map[string]string{"section": KindOutputs}
	}
}

func (p *parser) add(r document.Range, sev Severity, code, msg string) {
	p.c.Findings = append(p.c.Findings, Finding{File: p.c.File, Range: r, Severity: sev, Code: code, Message: msg})
}

// entries returns the lines of a section's list items and paragraphs, in
// order: the unit most sections are written in.
func entries(s markdown.Section) []markdown.Line {
	var out []markdown.Line
	for _, b := range s.Blocks {
		if b.Kind == markdown.BlockList || b.Kind == markdown.BlockParagraph {
			out = append(out, b.Lines...)
		}
	}
	return out
}

func firstTable(s markdown.Section) *Table {
	for _, b := range s.Blocks {
		if b.Kind != markdown.BlockTable {
			continue
		}
		t := &Table{}
		for _, h := range b.Table.Header {
			t.Header = append(t.Header, h.Text)
		}
		for _, row := range b.Table.Rows {
			var cells []string
			for _, c := range row {
				cells = append(cells, c.Text)
			}
			t.Rows = append(t.Rows, cells)
		}
		return t
	}
	return nil
}

func (p *parser) blocksText(bs []markdown.Block) string {
	var parts []string
	for _, b := range bs {
		if b.Kind == markdown.BlockParagraph {
			parts = append(parts, string(p.src[b.Range.Start:b.Range.End]))
		}
	}
	return strings.Join(parts, "\n\n")
}

// text returns the source in r, trimmed, with CRLF line ends made LF so
// that no carriage return reaches the assembled context.
func (p *parser) text(r document.Range) string {
	return strings.TrimSpace(lf(string(p.src[r.Start:r.End])))
}

func lf(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func countLines(src []byte) int {
	if len(src) == 0 {
		return 0
	}
	n := bytes.Count(src, []byte("\n"))
	if src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// lineRange returns the range of the 0-based line n (clamped to the file).
func lineRange(src []byte, n int) document.Range {
	start := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(src[start:], '\n')
		if j < 0 {
			break
		}
		start += j + 1
	}
	end := bytes.IndexByte(src[start:], '\n')
	if end < 0 {
		return document.Range{Start: start, End: len(src)}
	}
	return document.Range{Start: start, End: start + end}
}

func stripPrefixFold(s, prefix string) string {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):]
	}
	return s
}
