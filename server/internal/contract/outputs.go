package contract

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// arrowOutput matches "FILE -> DIR" (also with a Unicode arrow).
var arrowOutput = regexp.MustCompile("^\\s*`?([^`\\s]+)`?\\s*(?:->|→)\\s*`?([^`\\s]+)`?\\s*(.*)$")

var (
	outputPathColumns = []string{"location", "path", "file", "file/location", "output"}
	outputNameColumns = []string{"artifact", "name", "what", "output", "file"}
	formatColumns     = []string{"format", "type", "purpose", "notes"}
)

func (p *parser) outputs(s markdown.Section) {
	for _, b := range s.Blocks {
		switch b.Kind {
		case markdown.BlockList, markdown.BlockParagraph:
			for _, l := range b.Lines {
				t := strings.TrimLeft(l.Text, " `")
				// Prose under the table is kept, not read as entries.
				if t == "" || (b.Kind == markdown.BlockParagraph && !arrowOutput.MatchString(l.Text) && !strings.HasPrefix(t, "output/")) {
					continue
				}
				p.listOutput(l)
			}
		case markdown.BlockTable:
			p.tableOutputs(b.Table)
		}
	}
	if len(p.c.Outputs) == 0 {
		p.add(s.Heading.TextRange, Error, CodeEmptySection, "the Outputs section names no file; write `- notes.md -> output/`")
	}
}

func (p *parser) listOutput(l markdown.Line) {
	if m := arrowOutput.FindStringSubmatchIndex(l.Text); m != nil {
		file, dir := l.Text[m[2]:m[3]], l.Text[m[4]:m[5]]
		o := Output{Name: file, PathRange: l.Sub(m[2], m[3]-m[2]), Range: l.Range, Format: strings.TrimSpace(cleanWhy(l.Text[m[6]:m[7]]))}
		d := path.Clean(strings.TrimSuffix(dir, "/"))
		if d != "output" && !strings.HasPrefix(d, "output/") {
			p.add(l.Sub(m[4], m[5]-m[4]), Error, CodeOutputLocation,
				fmt.Sprintf("outputs go in the stage's output/ folder, not %s; write `- %s -> output/`", dir, file))
			return
		}
		o.Path = path.Join(d, file)
		if !strings.HasPrefix(o.Path, "output/") {
			p.add(o.PathRange, Error, CodeOutputLocation,
				fmt.Sprintf("%s climbs out of output/; name a file inside the stage's output/ folder", file))
			return
		}
		p.addOutput(o)
		return
	}
	// A bare path: "- output/notes.md" or "- `output/notes.md` (what it is)".
	file, at, why := splitPathWhy(l.Text)
	o := Output{Name: file, PathRange: l.Sub(at, len(file)), Range: l.Range, Format: why}
	if !strings.HasPrefix(path.Clean(file), "output/") {
		p.add(o.PathRange, Error, CodeOutputLocation,
			fmt.Sprintf("%q is not in output/; write `- %s -> output/`", file, path.Base(file)))
		return
	}
	o.Path = file
	p.addOutput(o)
}

func (p *parser) tableOutputs(t *markdown.Table) {
	pathCol := column(t.Header, outputPathColumns, -1)
	if pathCol < 0 {
		p.add(rowRange(t.Header), Error, CodeBadOutput, "the Outputs table has no `Location` column")
		return
	}
	nameCol := column(t.Header, outputNameColumns, pathCol)
	formatCol := column(t.Header, formatColumns, pathCol)
	for _, row := range t.Rows {
		if pathCol >= len(row) {
			continue
		}
		c := row[pathCol]
		file, at := unquoteCell(c.Text)
		if file == "" {
			continue
		}
		o := Output{Path: file, PathRange: c.Sub(at, len(file)), Range: rowRange(row)}
		if nameCol >= 0 && nameCol < len(row) {
			o.Name = cleanCell(row[nameCol].Text)
		}
		if formatCol >= 0 && formatCol < len(row) {
			o.Format = cleanCell(row[formatCol].Text)
		}
		if !strings.HasPrefix(path.Clean(file), "output/") && path.Clean(file) != "output" {
			p.add(o.PathRange, Error, CodeOutputLocation, fmt.Sprintf("%q is not in output/; outputs go in the stage's output/ folder", file))
			continue
		}
		p.addOutput(o)
	}
}

func (p *parser) addOutput(o Output) {
	if strings.HasSuffix(o.Path, "/") || path.Clean(o.Path) == "output" {
		o.Dir = true
	}
	o.Path = path.Clean(o.Path)
	if placeholder.MatchString(o.Path) {
		o.Templated = true
	}
	for _, prev := range p.c.Outputs {
		if prev.Path == o.Path {
			p.add(o.PathRange, Error, CodeOutputConflict, fmt.Sprintf("%s is listed twice", o.Path))
			return
		}
	}
	p.c.Outputs = append(p.c.Outputs, o)
}
