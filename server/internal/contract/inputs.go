package contract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// listInput matches "Layer 4 (working): input.md" (the parenthesis optional).
var listInput = regexp.MustCompile(`(?i)^\s*layer\s*([^\s(:]*)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$`)

// quotedHeading matches a heading name in quotes in a Section/Scope cell.
var quotedHeading = regexp.MustCompile(`["“”]([^"“”]+)["“”]`)

// placeholder matches the template placeholders that make a path unresolvable.
var placeholder = regexp.MustCompile(`\[[^\]]+\]|\{\{[^}]*\}\}|<[^>]+>`)

func (p *parser) inputs(s markdown.Section) {
	notations := map[string]bool{}
	for _, b := range s.Blocks {
		switch b.Kind {
		case markdown.BlockList, markdown.BlockParagraph:
			for _, l := range b.Lines {
				// A paragraph may hold prose around the entries; only list
				// items and "Layer N" lines are entries.
				if strings.TrimSpace(l.Text) == "" || (b.Kind == markdown.BlockParagraph && !listInput.MatchString(l.Text)) {
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
	rest, restAt := l.Text, 0
	if m == nil {
		if strings.EqualFold(strings.TrimSpace(l.Text), "none") {
			return
		}
		in.LayerInferred = true
	} else {
		layerText := l.Text[m[2]:m[3]]
		kind := ""
		if m[4] >= 0 {
			kind = strings.ToLower(strings.TrimSpace(l.Text[m[4]:m[5]]))
		}
		in.Layer = p.layerNumber(layerText, l.Sub(m[2], m[3]-m[2]))
		if in.Layer != 0 && kind != "" {
			want := map[int]string{LayerReference: "reference", LayerWorking: "working"}[in.Layer]
			if kind != want {
				p.add(l.Sub(m[4], m[5]-m[4]), Warning, CodeLayerKind,
					fmt.Sprintf("layer %d is %s material, but the entry says %q", in.Layer, want, kind))
			}
		}
		rest, restAt = l.Text[m[6]:m[7]], m[6]
	}
	path, pathAt, why := splitPathWhy(rest)
	if strings.Contains(path, "#") && !strings.HasPrefix(strings.TrimSpace(rest), "`") {
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
	p.setPath(&in, l, restAt+pathAt, path)
	if in.LayerInferred && !in.NonFile {
		in.Layer = inferLayer(in.Path, "")
		p.add(l.Range, Info, CodeNoLayer,
			fmt.Sprintf("no layer given for %s; icm treats it as layer %d (%s)", in.Path, in.Layer, layerWord(in.Layer)))
	}
	p.c.Inputs = append(p.c.Inputs, in)
}

// setPath fills Path, PathRange, Scope, NonFile and Templated from the
// path text found at byte offset at of line l.
func (p *parser) setPath(in *Input, l markdown.Line, at int, path string) {
	if before, _, _ := strings.Cut(path, "#"); looksLikeNonFile(before) {
		in.NonFile = true
		in.Source = strings.TrimSpace(in.Source + " " + path)
		p.add(l.Sub(at, len(path)), Info, CodeNonFileInput,
			fmt.Sprintf("%s is not a file; it is shown to a person, never loaded", path))
		return
	}
	file, section, hasSection := strings.Cut(path, "#")
	in.Path = file
	in.PathRange = l.Sub(at, len(file))
	if hasSection && strings.TrimSpace(section) != "" {
		in.Scope = &Scope{Headings: []string{strings.TrimSpace(section)}, Raw: section, Range: l.Sub(at+len(file)+1, len(section))}
	}
	if placeholder.MatchString(file) {
		in.Templated = true
		p.add(in.PathRange, Info, CodePlaceholderPath,
			fmt.Sprintf("%s holds a placeholder; icm cannot check or load it until the placeholder is filled in", file))
	}
}

// splitPathWhy takes the path from the front of s (in backticks, or up to
// the first space) and returns it, its offset in s, and the rest.
func splitPathWhy(s string) (path string, at int, why string) {
	trimmed := strings.TrimLeft(s, " \t")
	at = len(s) - len(trimmed)
	if strings.HasPrefix(trimmed, "`") {
		if end := strings.Index(trimmed[1:], "`"); end >= 0 {
			return trimmed[1 : 1+end], at + 1, cleanWhy(trimmed[end+2:])
		}
	}
	if i := strings.IndexAny(trimmed, " \t"); i >= 0 {
		return trimmed[:i], at, cleanWhy(trimmed[i:])
	}
	return trimmed, at, ""
}

func cleanWhy(s string) string {
	s = strings.TrimSpace(s)
	for _, p := range []string{"—", "–", "-", ":", "(", "|"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	return strings.TrimSpace(strings.TrimSuffix(s, ")"))
}

func (p *parser) layerNumber(text string, r Range) int {
	t := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(text)), "L")
	n, err := strconv.Atoi(t)
	switch {
	case err != nil:
		p.add(r, Error, CodeBadLayer, fmt.Sprintf("layer %q is not a number; inputs are layer 3 (reference) or layer 4 (working)", text))
		return 0
	case n == LayerReference || n == LayerWorking:
		return n
	case n >= 0 && n <= 2:
		p.add(r, Error, CodeBadLayer, fmt.Sprintf("layer %d is loaded by icm itself; inputs are layer 3 (reference) or layer 4 (working)", n))
		return 0
	default:
		p.add(r, Error, CodeBadLayer, fmt.Sprintf("there is no layer %d; inputs are layer 3 (reference) or layer 4 (working)", n))
		return 0
	}
}

// Table columns recognised in Inputs tables, by normalised header text.
var (
	pathColumns   = []string{"file/location", "file", "path", "location", "file path", "input", "source file"}
	layerColumns  = []string{"layer"}
	scopeColumns  = []string{"section/scope", "section to load", "section", "scope", "sections"}
	sourceColumns = []string{"source", "from", "type", "kind"}
	whyColumns    = []string{"why", "use", "purpose", "notes", "note", "description"}
)

func column(header []markdown.Line, names []string, skip int) int {
	for _, n := range names {
		for i, h := range header {
			if i != skip && normHeader(h.Text) == n {
				return i
			}
		}
	}
	return -1
}

func normHeader(s string) string {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), "*_`"))
	return strings.Join(strings.Fields(s), " ")
}

func (p *parser) tableInputs(t *markdown.Table) {
	pathCol := column(t.Header, pathColumns, -1)
	if pathCol < 0 {
		p.add(rowRange(t.Header), Error, CodeBadInput, "the Inputs table has no file column; name one `File/Location`, `File` or `Path`")
		return
	}
	layerCol := column(t.Header, layerColumns, pathCol)
	scopeCol := column(t.Header, scopeColumns, pathCol)
	sourceCol := column(t.Header, sourceColumns, pathCol)
	whyCol := column(t.Header, whyColumns, pathCol)
	for _, row := range t.Rows {
		cell := func(i int) markdown.Line {
			if i < 0 || i >= len(row) {
				return markdown.Line{}
			}
			return row[i]
		}
		pc := cell(pathCol)
		in := Input{Notation: "table", Range: rowRange(row), Source: cleanCell(cell(sourceCol).Text), Why: cleanCell(cell(whyCol).Text)}
		path, at := unquoteCell(pc.Text)
		if path == "" {
			if strings.TrimSpace(pc.Text) == "" && len(row) > 0 {
				p.add(in.Range, Error, CodeBadInput, "this Inputs row names no file")
			}
			continue
		}
		p.setPath(&in, pc, at, path)
		if layerCol >= 0 {
			lc := cell(layerCol)
			lt := strings.TrimSpace(lc.Text)
			if m := listInput.FindStringSubmatch(lt + ":"); m != nil {
				lt = m[1]
			}
			in.Layer = p.layerNumber(lt, lc.Range)
		} else if !in.NonFile {
			in.Layer = inferLayer(in.Path, in.Source)
			in.LayerInferred = true
		}
		if scopeCol >= 0 {
			sc := cell(scopeCol)
			if s := p.scope(sc); s != nil {
				in.Scope = s
			}
		}
		p.c.Inputs = append(p.c.Inputs, in)
	}
}

// scope reads a Section/Scope cell: `Full file`, `"A" through "B"`,
// `"A" and "B"`, or free text.
func (p *parser) scope(c markdown.Line) *Scope {
	raw := strings.TrimSpace(c.Text)
	low := strings.ToLower(strings.Trim(raw, "`*_ ."))
	switch low {
	case "", "full file", "full", "all", "whole file", "entire file", "everything", "-", "—", "n/a":
		return nil
	}
	s := &Scope{Raw: raw, Range: c.Range}
	quoted := quotedHeading.FindAllStringSubmatch(raw, -1)
	for _, q := range quoted {
		s.Headings = append(s.Headings, strings.TrimSpace(q[1]))
	}
	if len(s.Headings) == 0 {
		s.FreeText = true
		p.add(c.Range, Info, CodeFreeScope,
			fmt.Sprintf("scope %q is an instruction, not a heading; icm loads the whole file (quote headings, e.g. \"Tone\", to load only them)", raw))
		return s
	}
	s.Through = len(s.Headings) == 2 && strings.Contains(strings.ToLower(raw), " through ")
	return s
}

// rowRange covers the non-empty cells of a table row.
func rowRange(row []markdown.Line) Range {
	r := Range{Start: -1}
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
		return Range{}
	}
	return r
}

// unquoteCell returns the path inside a cell (backticks removed) and its
// offset in the cell text.
func unquoteCell(s string) (string, int) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "`") {
		// "`path` (a note)": the path is what the backticks hold.
		if end := strings.Index(t[1:], "`"); end >= 0 {
			t = strings.TrimSpace(t[1 : 1+end])
		}
	}
	if t == "" {
		return "", 0
	}
	return t, strings.Index(s, t)
}

func cleanCell(s string) string { return strings.Trim(strings.TrimSpace(s), "`") }

// looksLikeNonFile reports whether a path cell names something that is not
// a file: "(conversation)", "User input", a shell command.
func looksLikeNonFile(p string) bool {
	t := strings.TrimSpace(p)
	if t == "" {
		return true
	}
	if strings.HasPrefix(t, "(") || strings.ContainsAny(t, " \t") && !placeholder.MatchString(t) {
		return true
	}
	return false
}

// inferLayer guesses the layer of an entry that names none: another
// stage's output (or a source column that says so) is working material;
// everything else is reference.
func inferLayer(path, source string) int {
	src := strings.ToLower(source)
	if strings.Contains(path, "output/") || strings.Contains(src, "previous stage") || strings.Contains(src, "output") ||
		strings.Contains(src, "user") || strings.Contains(src, "working") || strings.Contains(src, "input") {
		return LayerWorking
	}
	return LayerReference
}

func layerWord(n int) string {
	if n == LayerWorking {
		return "working"
	}
	return "reference"
}
