package contract

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/markdown"
)

// listInput matches "Layer 4 (working): input.md" (the parenthesis optional).
var listInput = regexp.MustCompile(`(?i)^\s*layer\s*([^\s(:]*)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$`)

// shortLayer matches the short label "L4 (working): input.md", "L3: x.md":
// not icm's notation, but it gives the layer all the same.
var shortLayer = regexp.MustCompile(`(?i)^\s*l([0-9]+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$`)

func (p *parser) inputs(s markdown.Section) {
	notations := map[string]bool{}
	// excluded is set after a line that introduces what is not to be
	// loaded ("Do not load:", "Never read:"), up to the next heading or
	// line of prose: those entries are not inputs.
	excluded := false
	for _, b := range s.Blocks {
		switch b.Kind {
		case markdown.BlockHeading:
			excluded = exclusion(b.Heading.Text)
		case markdown.BlockParagraph:
			if len(b.Lines) > 0 && !listInput.MatchString(b.Lines[0].Text) {
				excluded = exclusion(b.Lines[0].Text)
			}
		}
		if excluded && b.Kind != markdown.BlockHeading {
			continue
		}
		switch b.Kind {
		case markdown.BlockList, markdown.BlockParagraph:
			for _, l := range b.Lines {
				// A paragraph may hold prose around the entries; only list
				// items and "Layer N" lines are entries.
				if strings.TrimSpace(l.Text) == "" || (b.Kind == markdown.BlockParagraph && !listInput.MatchString(l.Text)) || exclusion(l.Text) {
					continue
				}
				p.listInput(l)
				notations["list"] = true
			}
		case markdown.BlockTable:
			p.tableInputs(b.Table)
			notations["table"] = true
		}
	}
	switch {
	case notations["list"] && notations["table"]:
		p.c.InputNotation = "mixed"
	case notations["list"]:
		p.c.InputNotation = "list"
	case notations["table"]:
		p.c.InputNotation = "table"
	}
}

func (p *parser) listInput(l markdown.Line) {
	in := Input{Notation: "list", Range: l.Range}
	m := listInput.FindStringSubmatchIndex(l.Text)
	// labelled: the entry's label is not icm's "Layer N:" ("L4 (working):"):
	// that its path is an input rests on reading it.
	labelled := false
	if m == nil {
		m = shortLayer.FindStringSubmatchIndex(l.Text)
		labelled = m != nil
	}
	rest, restAt := l.Text, 0
	if m == nil {
		if strings.EqualFold(strings.TrimSpace(l.Text), "none") {
			return
		}
		in.LayerInferred = true
	} else {
		kind, kindRange := "", document.Range{}
		if m[4] >= 0 {
			kind, kindRange = l.Text[m[4]:m[5]], l.Sub(m[4], m[5]-m[4])
		}
		in.Layer = p.layerNumber(l.Text[m[2]:m[3]], l.Sub(m[2], m[3]-m[2]))
		p.layerKind(in.Layer, kind, kindRange)
		rest, restAt = l.Text[m[6]:m[7]], m[6]
	}
	path, pathAt, quoted, why := splitPathWhy(rest)
	if strings.Contains(path, "#") && !quoted {
		// "file.md#Heading with spaces": the heading runs to the end of the
		// entry or to a separator before a note.
		full := rest[pathAt:]
		end := len(full)
		for _, sep := range []string{" — ", " – ", " - ", " (", " |"} {
			if i := strings.Index(full, sep); i >= 0 && i < end && i > strings.Index(full, "#") {
				end = i
			}
		}
		path, why = strings.TrimRight(full[:end], " \t"), cleanWhy(full[end:])
	}
	if path == "" {
		p.add(l.Range, Error, CodeBadInput, "the input entry names no file; write `- Layer 4 (working): input.md`")
		return
	}
	in.Why = why
	in.Optional = optional(rest)
	if file, _, _ := strings.Cut(path, "#"); !(pathShaped(file, quoted) || (quoted && quotedPathShaped(file))) {
		if p.labelledInputs(in, l, rest, restAt) {
			return
		}
		// Not a path: the whole entry names something else.
		what := strings.TrimSpace(rest)
		p.nonFileInput(&in, l.Sub(restAt+strings.Index(rest, what), len(what)), what)
	} else {
		p.setPath(&in, l, restAt+pathAt, path)
		in.Embedded = labelled
	}
	if in.LayerInferred && !in.NonFile {
		in.Layer = LocationLayer(in.Path)
		if !p.references && !in.Embedded {
			p.add(l.Range, Info, CodeNoLayer,
				fmt.Sprintf("no layer given for %s; icm treats it as layer %d (%s)", in.Path, in.Layer, layerWord(in.Layer)))
		}
	}
	if in.Layer == 0 && !in.NonFile {
		// A layer icm cannot use (a finding says so): the file is
		// loaded all the same, as where it lives says.
		in.Layer, in.LayerInferred = LocationLayer(in.Path), true
	}
	p.addInput(in)
}

// labelledInputs reads an entry whose label comes before its paths ("PRD
// at `docs/prd.md`", "Design system: `_config/design.md`"): each path in
// backticks is an input. That the words around it make it one rests on
// reading them (Embedded), so a file that is not there is a note. It
// reports whether the entry named any path.
func (p *parser) labelledInputs(in Input, l markdown.Line, rest string, restAt int) bool {
	t := strings.TrimSpace(rest)
	if t == "" || strings.HasPrefix(t, "(") || !strings.Contains(t, "`") {
		// "(conversation; see `roles.md`)": about something not a file.
		return false
	}
	found := false
	label := labelBefore(rest[:strings.Index(rest, "`")])
	dir := "" // the folder of the last path with one
	for _, m := range backtickSpan.FindAllStringSubmatchIndex(rest, -1) {
		inner := rest[m[2]:m[3]]
		path := strings.TrimSpace(inner)
		if file, _, _ := strings.Cut(path, "#"); !quotedPathShaped(file) || (folderShaped(file) && !label) {
			// A folder in a sentence ("docs from `docs/`") is a place
			// named, not all of it to load.
			continue
		}
		one := in
		one.Why = cleanWhy(rest[m[1]:])
		p.setPath(&one, l, restAt+m[2]+strings.Index(inner, path), path)
		if dir != "" && fileNameShaped(one.Path) {
			// "`mockups/main.html` (home), `other.html`": a bare name
			// after a path is in the same folder.
			one.Path = dir + "/" + one.Path
		} else if i := strings.LastIndex(one.Path, "/"); i > 0 && !folderShaped(one.Path) {
			dir = one.Path[:i]
		}
		one.Embedded = true
		if one.LayerInferred || one.Layer == 0 {
			one.Layer, one.LayerInferred = LocationLayer(one.Path), true
		}
		p.addInput(one)
		found = true
	}
	return found
}

// labelBefore reports whether the words before the first path end as a
// label does ("Data layer: `a/`, `b/`"): the paths are what is named.
func labelBefore(before string) bool {
	return strings.HasSuffix(strings.TrimSpace(before), ":")
}

// nonFileInput marks an entry that names something other than a file: a
// conversation, a command, a URL. It is shown, never loaded.
func (p *parser) nonFileInput(in *Input, r document.Range, what string) {
	in.NonFile = true
	in.What = cleanCell(what)
	in.PathRange = r
	if in.Layer == 0 {
		// What a person brings to the run is working material.
		in.Layer = LayerWorking
		in.LayerInferred = true
	}
	p.add(r, Info, CodeNonFileInput, fmt.Sprintf("%s is not a file; it is shown to a person, never loaded", in.What))
}

// setPath fills Path, PathRange, Scope and Templated from the path text
// found at byte offset at of line l.
func (p *parser) setPath(in *Input, l markdown.Line, at int, path string) {
	file, section, hasSection := strings.Cut(path, "#")
	in.Path = file
	if filled, unset := p.c.vars.Expand(file); filled != file || len(unset) > 0 {
		if filled != file {
			in.Written, in.Path = file, filled
		}
		in.Unset = unset
	}
	in.PathRange = l.Sub(at, len(file))
	if hasSection && strings.TrimSpace(section) != "" {
		in.Scope = &Scope{Headings: []string{strings.TrimSpace(section)}, Raw: section, Range: l.Sub(at+len(file)+1, len(section))}
	}
	in.Templated = placeholder.MatchString(in.Path)
	bare, _ := withoutPlaceholders(in.Path)
	in.Glob = strings.ContainsAny(bare, "*?")
}

// splitPathWhy takes the path from the front of s (in backticks, or up to
// the first space) and returns it, its offset in s, whether it was in
// backticks, and the rest.
func splitPathWhy(s string) (path string, at int, quoted bool, why string) {
	trimmed := strings.TrimLeft(s, " \t")
	at = len(s) - len(trimmed)
	if strings.HasPrefix(trimmed, "`") {
		if end := strings.Index(trimmed[1:], "`"); end >= 0 {
			return trimmed[1 : 1+end], at + 1, true, cleanWhy(trimmed[end+2:])
		}
	}
	if i := strings.IndexAny(trimmed, " \t"); i >= 0 {
		return trimmed[:i], at, false, cleanWhy(trimmed[i:])
	}
	return trimmed, at, false, ""
}

func cleanWhy(s string) string {
	s = strings.TrimSpace(s)
	for _, p := range []string{"—", "–", "-", ":", "(", "|"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	return strings.TrimSpace(strings.TrimSuffix(s, ")"))
}

const layerHint = "inputs are layer 3 (reference) or layer 4 (working); icm loads it as where the file lives says"

func (p *parser) layerNumber(text string, r document.Range) int {
	t := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(text)), "L")
	n, err := strconv.Atoi(t)
	switch {
	case err != nil:
		p.add(r, Error, CodeBadLayer, fmt.Sprintf("%q is not a layer; %s", strings.TrimSpace(text), layerHint))
		return 0
	case n == LayerReference || n == LayerWorking:
		return n
	case n >= 0 && n <= 2:
		// An author's own count of the layers (0 the identity file, 1 the
		// routing, 2 the last stage's output): icm loads layers 0 and 1
		// itself, and the rest as where each file lives says.
		return 0
	default:
		p.add(r, Error, CodeBadLayer, fmt.Sprintf("there is no layer %d; %s", n, layerHint))
		return 0
	}
}

// Words that name a layer's kind, in the languages contracts are written in.
var (
	referenceWords = set("reference", "references", "ref", "referência", "referencia", "referências", "référence", "referenz", "regras", "rules")
	workingWords   = set("working", "work", "trabalho", "material", "trabajo", "travail", "arbeit", "arbeitsmaterial")
)

// layerKind warns when the word beside a layer number says the other kind.
func (p *parser) layerKind(layer int, kind string, r document.Range) {
	if layer == 0 || strings.TrimSpace(kind) == "" {
		return
	}
	said := 0
	switch {
	case hasWord(kind, referenceWords):
		said = LayerReference
	case hasWord(kind, workingWords):
		said = LayerWorking
	}
	if said != 0 && said != layer {
		p.add(r, Warning, CodeLayerKind,
			fmt.Sprintf("layer %d is %s material, but the entry says %q", layer, layerWord(layer), strings.TrimSpace(kind)))
	}
}

// tableLayer reads a Layer cell: "3", "L4", "Layer 3", "3 (reference)",
// "Layer 4 (working)", or just "reference" / "working". A dash or "none"
// gives no layer (0), and no finding.
func (p *parser) tableLayer(c markdown.Line) int {
	text := strings.TrimSpace(c.Text)
	if noLayer(text) {
		return 0
	}
	if m := layerCell.FindStringSubmatchIndex(c.Text); m != nil {
		n := p.layerNumber(c.Text[m[2]:m[3]], c.Sub(m[2], m[3]-m[2]))
		rest := c.Text[m[3]:]
		p.layerKind(n, strings.Trim(strings.TrimSpace(rest), "()[]:-–— "), c.Sub(m[3], len(rest)))
		return n
	}
	switch {
	case hasWord(text, referenceWords):
		return LayerReference
	case hasWord(text, workingWords):
		return LayerWorking
	}
	return p.layerNumber(text, c.Range)
}

// rowRange covers the non-empty cells of a table row.
func rowRange(row []markdown.Line) document.Range {
	r := document.Range{Start: -1}
	for _, c := range row {
		if c.Range.Len() == 0 {
			continue
		}
		if r.Start < 0 || c.Range.Start < r.Start {
			r.Start = c.Range.Start
		}
		if c.Range.End > r.End {
			r.End = c.Range.End
		}
	}
	if r.Start < 0 {
		return document.Range{}
	}
	return r
}

// cleanCell trims a cell and the backticks around it when they wrap the
// whole of it ("`notes.md`"), never a backtick that closes a span inside.
func cleanCell(s string) string {
	t := strings.TrimSpace(s)
	if len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' && !strings.Contains(t[1:len(t)-1], "`") {
		return t[1 : len(t)-1]
	}
	return t
}

// LocationLayer is the layer of an input that names none, from where the
// file lives: in a stage's output/ folder it is working material (layer
// 4); anywhere else (the reference folders _config/, shared/,
// references/, brand-vault/, design-system/, skills/, the repository's
// _core/, or the stage's own files) reference (layer 3), as the method
// has it. A file the stage also writes (a document it edits in place) is
// working material too (see workingWhenWritten). Words in other columns
// never decide it.
func LocationLayer(path string) int {
	segs := strings.Split(strings.ReplaceAll(path, `\`, "/"), "/")
	for _, seg := range segs[:max(0, len(segs)-1)] {
		if seg == "output" {
			return LayerWorking
		}
	}
	return LayerReference
}

// workingWhenWritten makes an input whose layer was inferred working
// material when the stage also names it among its outputs: what a stage
// edits is the material of the run, never a constraint.
func (c *Contract) workingWhenWritten() {
	inferred := false
	for _, in := range c.Inputs {
		inferred = inferred || (in.LayerInferred && !in.NonFile && in.Layer != LayerWorking)
	}
	if !inferred {
		return
	}
	written := map[string]bool{}
	for _, o := range c.Outputs {
		written[path.Clean(o.Path)] = true
	}
	for _, o := range c.ExternalOutputs {
		written[path.Clean(o.Path)] = true
	}
	if len(written) == 0 {
		return
	}
	for i := range c.Inputs {
		in := &c.Inputs[i]
		if in.LayerInferred && !in.NonFile && written[path.Clean(in.Path)] {
			in.Layer = LayerWorking
		}
	}
}

// exclusionPhrases open a line that lists what is not to be loaded.
var exclusionPhrases = splitPhrases(
	"do not load", "don't load", "dont load", "never load", "do not read", "don't read", "never read",
	"not loaded", "not to load", "do not include", "exclude", "excluded", "excluding", "ignore", "skip",
	"ne pas charger", "ne jamais charger", "ne pas lire",
	"não carregar", "nao carregar", "nunca carregar", "não ler", "nunca ler",
	"no cargar", "nunca cargar", "no leer", "nicht laden", "nie laden", "nicht lesen",
)

// exclusionStarts are the first letters of the exclusion phrases: a line
// starting otherwise needs no closer look.
const exclusionStarts = "dnesij"

// exclusion reports whether a line starts by saying that what follows is
// not to be loaded.
func exclusion(text string) bool {
	t := strings.TrimLeft(text, " \t*_#>`-")
	if t == "" || !strings.ContainsRune(exclusionStarts, unicode.ToLower(rune(t[0]))) {
		return false
	}
	ws := words(t)
	for _, ph := range exclusionPhrases {
		if len(ph) > 0 && len(ws) >= len(ph) && equalWords(ws[:len(ph)], ph) {
			return true
		}
	}
	return false
}

// excludedRow reports whether a table row says its file is not to be
// loaded: a row whose first non-empty cell opens with "Do not load".
func excludedRow(row []markdown.Line) bool {
	for _, c := range row {
		if strings.TrimSpace(c.Text) != "" {
			return exclusion(c.Text)
		}
	}
	return false
}

func layerWord(n int) string {
	if n == LayerWorking {
		return "working"
	}
	return "reference"
}

// noLayer reports whether a Layer cell says there is none: a dash, "none",
// "n/a".
func noLayer(text string) bool {
	t := strings.ToLower(strings.Trim(text, " *_`"))
	return strings.Trim(t, "-–—") == "" || t == "none" || t == "n/a" || t == "na"
}
