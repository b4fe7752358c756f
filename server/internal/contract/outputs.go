package contract

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// arrowOutput matches "FILE -> DIR" (also with a Unicode arrow).
var arrowOutput = regexp.MustCompile("^\\s*`?([^`\\s]+)`?\\s*(?:->|→)\\s*`?([^`\\s]+)`?\\s*(.*)$")

// checkbox matches a task-list item ("[ ] Reads well", "[x] Done").
var checkbox = regexp.MustCompile(`^\s*\[[ xX]\]`)

func (p *parser) outputs(s markdown.Section) {
	hasTable := false
	for _, b := range s.Blocks {
		hasTable = hasTable || b.Kind == markdown.BlockTable
	}
	for _, b := range s.Blocks {
		switch b.Kind {
		case markdown.BlockList, markdown.BlockParagraph:
			for _, l := range b.Lines {
				if !p.outputLine(l, b.Kind == markdown.BlockList, hasTable) {
					continue
				}
				p.listOutput(l)
			}
		case markdown.BlockTable:
			p.tableOutputs(b.Table)
		}
	}
	if len(p.c.Outputs) == 0 && len(p.c.OtherOutputs) == 0 {
		p.add(s.Heading.TextRange, Error, CodeEmptySection, "the Outputs section names no file; write `- notes.md -> output/`")
	}
}

// outputLine reports whether a list item or paragraph line of the Outputs
// section is an output entry. Beside a table only icm's arrow notation is;
// checklists, heading descriptions and prose are kept as text.
func (p *parser) outputLine(l markdown.Line, listItem, hasTable bool) bool {
	t := strings.TrimLeft(l.Text, " `")
	switch {
	case t == "":
		return false
	case arrowOutput.MatchString(l.Text):
		return true
	case hasTable:
		return false
	case !listItem:
		// Prose under the entries is kept, not read as entries.
		return strings.HasPrefix(t, "output/")
	}
	return !checkbox.MatchString(l.Text) && !strings.HasPrefix(t, "#")
}

func (p *parser) listOutput(l markdown.Line) {
	if m := arrowOutput.FindStringSubmatchIndex(l.Text); m != nil {
		file, dir := l.Text[m[2]:m[3]], l.Text[m[4]:m[5]]
		o := Output{Name: file, PathRange: l.Sub(m[2], m[3]-m[2]), Range: l.Range, Format: strings.TrimSpace(cleanWhy(l.Text[m[6]:m[7]]))}
		if isAbsolute(file) {
			p.add(o.PathRange, Error, CodePathEscape,
				fmt.Sprintf("%s is an absolute path; an output is a file name inside the stage's output/ folder: write `- %s -> output/`", file, path.Base(file)))
			return
		}
		d := path.Clean(strings.TrimSuffix(p.stageRelative(dir), "/"))
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
	file, at, quoted, why := splitPathWhy(l.Text)
	o := Output{Name: file, PathRange: l.Sub(at, len(file)), Range: l.Range, Format: why}
	if !pathShaped(file, quoted) {
		what := strings.TrimSpace(l.Text)
		p.nonFileOutput(Output{Name: what, Range: l.Range}, l.Sub(strings.Index(l.Text, what), len(what)), what)
		return
	}
	file = p.stageRelative(file)
	if !strings.HasPrefix(path.Clean(file), "output/") {
		p.add(o.PathRange, Error, CodeOutputLocation,
			fmt.Sprintf("%q is not in output/; write `- %s -> output/`", file, path.Base(file)))
		return
	}
	o.Path = file
	p.addOutput(o)
}

// isAbsolute reports whether p is written as an absolute path (Unix,
// Windows with a drive, or a UNC share).
func isAbsolute(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) ||
		(len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')))
}

// tableOutputs reads an Outputs table. The path column is found by the
// shape of its cells; a file name in one column and its folder in another
// (`| report.md | output/ |`) are joined.
func (p *parser) tableOutputs(t *markdown.Table) {
	cols := findOutputColumns(t)
	for _, row := range t.Rows {
		cell := func(i int) markdown.Line {
			if i < 0 || i >= len(row) {
				return markdown.Line{}
			}
			return row[i]
		}
		o := Output{Range: rowRange(row), Name: cleanCell(cell(cols.name).Text), Format: cleanCell(cell(cols.format).Text)}
		if o.Range.Len() == 0 {
			continue
		}
		pc := cell(cols.path)
		file, at, quoted := cellPath(pc.Text)
		if cols.path < 0 || !pathShaped(file, quoted) {
			what := strings.TrimSpace(pc.Text)
			r := pc.Sub(strings.Index(pc.Text, what), len(what))
			if what == "" {
				what, r = o.Name, o.Range
			}
			p.nonFileOutput(o, r, what)
			continue
		}
		o.PathRange = pc.Sub(at, len(file))
		if j, name, r := joinable(row, cols.path, file); j >= 0 {
			if folderShaped(file) {
				file, o.PathRange = path.Join(file, name), r
			} else {
				file = path.Join(name, file)
			}
			if cols.name == j {
				o.Name = ""
			}
		}
		file = p.stageRelative(file)
		if !strings.HasPrefix(path.Clean(file), "output/") && path.Clean(file) != "output" {
			p.add(o.PathRange, Error, CodeOutputLocation, fmt.Sprintf("%q is not in output/; outputs go in the stage's output/ folder", file))
			continue
		}
		o.Path = file
		if o.Name == "" {
			o.Name = path.Base(file)
		}
		p.addOutput(o)
	}
}

// joinable finds, for a path cell that is a folder, another cell of the
// row holding a bare file name (or, for a bare file name, a cell holding a
// folder), and returns its column, its text and its range.
func joinable(row []markdown.Line, pathCol int, file string) (int, string, Range) {
	wantFolder := fileNameShaped(file)
	if !wantFolder && !folderShaped(file) {
		return -1, "", Range{}
	}
	for j, c := range row {
		if j == pathCol {
			continue
		}
		t, at, _ := cellPath(c.Text)
		if (wantFolder && folderShaped(t) && pathShaped(t, true)) || (!wantFolder && fileNameShaped(t)) {
			return j, t, c.Sub(at, len(t))
		}
	}
	return -1, "", Range{}
}

// stageRelative rewrites a path written from the workspace root
// ("stages/01-a/output/brief.md") to the stage folder it names, when that
// is this contract's own folder; any other path is returned as it is.
func (p *parser) stageRelative(file string) string {
	clean := path.Clean(strings.TrimPrefix(file, "./"))
	i := strings.Index(clean+"/", "/output/")
	if i <= 0 {
		return file
	}
	prefix := clean[:i]
	dir := filepath.ToSlash(filepath.Dir(p.c.File))
	if strings.HasSuffix(dir, "/"+prefix) || dir == prefix {
		rest := clean[i+1:]
		if strings.HasSuffix(file, "/") {
			rest += "/"
		}
		return rest
	}
	return file
}

// nonFileOutput records an Outputs row that names something other than a
// file: a deployed site, commits in a repository.
func (p *parser) nonFileOutput(o Output, r Range, what string) {
	o.NonFile, o.What, o.PathRange = true, cleanCell(what), r
	p.c.OtherOutputs = append(p.c.OtherOutputs, o)
	p.add(r, Info, CodeNonFileOutput, fmt.Sprintf("%s is not a file; icm shows it but does not write it", o.What))
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
