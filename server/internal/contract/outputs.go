package contract

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/markdown"
)

// arrowOutput matches "FILE -> DIR" (also with a Unicode arrow).
var arrowOutput = regexp.MustCompile("^\\s*`?([^`\\s]+)`?\\s*(?:->|→)\\s*`?([^`\\s]+)`?\\s*(.*)$")

// leadingRemark matches a remark in parentheses before a path in
// backticks: "(optional) `notes.md`".
var leadingRemark = regexp.MustCompile("^\\s*\\([^)`]*\\)\\s*`")

// checkbox matches a task-list item ("[ ] Reads well", "[x] Done").
var checkbox = regexp.MustCompile(`^\s*\[[ xX]\]`)

func (p *parser) outputs(s markdown.Section) {
	p.outputEntries(s)
	if p.noOutputs() && p.emptyOutputs == nil {
		// Said once the whole contract is read (producedFiles): a
		// "Produced Files" section may name them.
		p.emptyOutputs = &s
	}
}

// outputEntries reads the entries of a section naming outputs.
func (p *parser) outputEntries(s markdown.Section) {
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
		case markdown.BlockHeading:
			p.headingOutput(b.Heading)
		}
	}
}

// headingOutput reads a heading under the Outputs section that is a path
// ("### output/poster.md", "### `summary.md`"): a file the stage writes,
// described below it.
func (p *parser) headingOutput(h *markdown.Heading) {
	file, at, quoted := cellPath(h.Text)
	if !pathShaped(file, quoted) || folderShaped(file) || (!quoted && strings.TrimSpace(h.Text) != file) {
		return
	}
	l := markdown.Line{Text: h.Text, Range: h.TextRange}
	p.namedOutput(Output{Name: path.Base(file), PathRange: l.Sub(at, len(file)), Range: h.Line}, file, true)
}

// outputFolder reports whether dir names the stage's output/ folder or
// one below it.
func outputFolder(dir string) bool {
	d := path.Clean(strings.TrimPrefix(dir, "./"))
	return d == "output" || strings.HasPrefix(d, "output/")
}

// ourArrow reports whether a line is icm's arrow notation (`FILE ->
// DIR`), not a sentence with an arrow in it ("`report.json` → referenced
// in the appendix"): the right side is a folder, or one word followed by
// nothing but a remark.
func ourArrow(text string) bool {
	m := arrowOutput.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	dir, rest := m[2], strings.TrimSpace(m[3])
	if strings.HasSuffix(dir, "/") || strings.Contains(dir, "/") || path.Clean(dir) == "output" {
		return true
	}
	return rest == "" || strings.IndexAny(rest[:1], "(—–-:|") == 0
}

// outputLine reports whether a list item or paragraph line of the Outputs
// section is an output entry. Beside a table only icm's arrow notation is;
// checklists, heading descriptions and prose are kept as text.
func (p *parser) outputLine(l markdown.Line, listItem, hasTable bool) bool {
	t := strings.TrimLeft(l.Text, " `")
	switch {
	case t == "":
		return false
	case ourArrow(l.Text):
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
	if m := arrowOutput.FindStringSubmatchIndex(l.Text); m != nil && ourArrow(l.Text) && (!p.foreignOutputs || outputFolder(l.Text[m[4]:m[5]])) {
		file, dir := l.Text[m[2]:m[3]], l.Text[m[4]:m[5]]
		o := Output{Name: file, PathRange: l.Sub(m[2], m[3]-m[2]), Range: l.Range, Format: strings.TrimSpace(cleanWhy(l.Text[m[6]:m[7]]))}
		if isAbsolute(file) {
			// Never written, so never outside the workspace: a warning.
			p.add(o.PathRange, Warning, CodePathEscape,
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
	// A bare path: "- output/notes.md" or "- `output/notes.md` (what it is)",
	// after a remark in parentheses ("(optional) `notes.md`").
	text, skip := l.Text, 0
	if m := leadingRemark.FindStringIndex(text); m != nil {
		text, skip = text[m[1]-1:], m[1]-1
	}
	file, at, quoted, why := splitPathWhy(text)
	at += skip
	o := Output{Name: file, PathRange: l.Sub(at, len(file)), Range: l.Range, Format: why}
	if !pathShaped(file, quoted) {
		if p.labelledOutputs(l) {
			return
		}
		what := strings.TrimSpace(l.Text)
		p.nonFileOutput(Output{Name: what, Range: l.Range}, l.Sub(strings.Index(l.Text, what), len(what)), what)
		return
	}
	file = p.stageRelative(file)
	if fileNameShaped(file) {
		// A bare file name in the list: the stage's output/ is meant.
		file = path.Join("output", file)
	}
	if !strings.HasPrefix(path.Clean(file), "output/") {
		// A path of the list notation that leaves output/: as before,
		// the line is wrong in icm's own grammar.
		p.add(o.PathRange, Error, CodeOutputLocation,
			fmt.Sprintf("%q is not in output/; write `- %s -> output/`", file, path.Base(file)))
		p.rejectedOutputs++
		return
	}
	o.Path = file
	p.addOutput(o)
}

// labelledOutputs reads an Outputs item whose label comes before its path
// ("Final plan: `output/plan.md` (second draft)"): each path in backticks
// that looks like one on its own is an output, in output/ or outside it,
// as in a table cell holding words besides its path. It reports whether
// the item named any.
func (p *parser) labelledOutputs(l markdown.Line) bool {
	toks := cellPaths(l.Text)
	if len(toks) == 0 {
		// "[the flyer](output/flyer.md), folded": a link names the file.
		toks = linePaths(l.Text, 0)
	}
	found := false
	label := strings.Contains(l.Text, "`") && labelBefore(l.Text[:strings.Index(l.Text, "`")])
	for _, tok := range toks {
		if !tok.quoted || (folderShaped(tok.path) && !label) {
			// "Notes in `output/`": a place named, not an output.
			continue
		}
		o := Output{Name: path.Base(tok.path), PathRange: l.Sub(tok.at, len(tok.path)), Range: l.Range}
		file := p.stageRelative(tok.path)
		if fileNameShaped(file) && (!tok.embedded || p.hasOutputNamed(file)) {
			file = path.Join("output", file)
		}
		found = true
		if !strings.HasPrefix(path.Clean(file), "output/") && path.Clean(file) != "output" {
			p.external(o, file)
			continue
		}
		o.Path = file
		if !p.hasOutput(path.Clean(file)) {
			p.addOutput(o)
		}
	}
	return found
}

// external records an output the contract names outside the stage's
// output/ folder: icm does not write it (check says so, once); a later
// stage reading the same path reads what this stage produces.
func (p *parser) external(o Output, file string) {
	p.rejectedOutputs++
	o.Path = file
	if filled, _ := p.c.vars.Expand(file); filled != file {
		o.Path = filled
	}
	o.Templated = placeholder.MatchString(o.Path)
	for _, prev := range p.c.ExternalOutputs {
		if prev.Path == o.Path {
			return
		}
	}
	p.c.ExternalOutputs = append(p.c.ExternalOutputs, o)
}

// isAbsolute reports whether p is written as an absolute path (Unix,
// Windows with a drive, or a UNC share).
func isAbsolute(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) ||
		(len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')))
}

// tableOutputs reads an Outputs table. The path column is found by the
// shape of its cells; a file name in one column and its folder in another
// (`| report.md | output/ |`) are joined; a cell naming several files
// gives each; two rows naming one file (two sections of it) give it once.
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
		var toks []cellTok
		if cols.path >= 0 {
			toks = cellPaths(pc.Text)
		}
		if len(toks) == 0 {
			what := strings.TrimSpace(pc.Text)
			r := pc.Sub(strings.Index(pc.Text, what), len(what))
			if what == "" {
				what, r = o.Name, o.Range
			}
			p.nonFileOutput(o, r, what)
			continue
		}
		for _, tok := range toks {
			one, file := o, tok.path
			one.PathRange = pc.Sub(tok.at, len(file))
			if j, name, r := joinable(row, cols.path, file); j >= 0 {
				switch {
				case folderShaped(file):
					file, one.PathRange = joinFolder(file, name), r
				default:
					file = joinFolder(name, file)
				}
				if cols.name == j {
					one.Name = ""
				}
			}
			file = p.stageRelative(file)
			if fileNameShaped(file) && (!tok.embedded || p.hasOutputNamed(file)) {
				file = path.Join("output", file) // a bare file name: the stage's output/
			}
			if !strings.HasPrefix(path.Clean(file), "output/") && path.Clean(file) != "output" {
				p.external(one, file)
				continue
			}
			one.Path = file
			if one.Name == "" {
				one.Name = path.Base(file)
			}
			if p.hasOutput(one.Path) {
				continue // another row names another part of the same file
			}
			p.addOutput(one)
		}
	}
}

// hasOutputNamed reports whether the contract already declares an output
// with the file name name ("Inside `synthesis.md` § Counter-argument"
// names a part of output/synthesis.md).
func (p *parser) hasOutputNamed(name string) bool {
	for _, o := range p.c.Outputs {
		if path.Base(o.Path) == name {
			return true
		}
	}
	return false
}

// hasOutput reports whether the contract already declares the output p.
func (p *parser) hasOutput(file string) bool {
	clean := path.Clean(file)
	for _, o := range p.c.Outputs {
		if o.Path == clean {
			return true
		}
	}
	return false
}

// joinFolder joins a folder and a path below it, dropping the folders the
// two spell twice ("stages/03-build/output/public/" and
// "public/index.html" give ".../output/public/index.html").
func joinFolder(dir, file string) string {
	d := strings.Split(strings.Trim(path.Clean(dir), "/"), "/")
	f := strings.Split(strings.Trim(path.Clean(file), "/"), "/")
	for k := min(len(d), len(f)-1); k > 0; k-- {
		if strings.Join(d[len(d)-k:], "/") == strings.Join(f[:k], "/") {
			return path.Join(append(d, f[k:]...)...)
		}
	}
	return path.Join(dir, file)
}

// joinable finds, for a path cell that is a folder, another cell of the
// row holding a bare file name (or, for a bare file name, a cell holding a
// folder), and returns its column, its text and its range.
func joinable(row []markdown.Line, pathCol int, file string) (int, string, document.Range) {
	wantFolder := fileNameShaped(file) || (!folderShaped(file) && !strings.Contains(file, "output/") && !strings.HasPrefix(file, "../") && !strings.HasPrefix(file, "/"))
	if !wantFolder && !folderShaped(file) {
		return -1, "", document.Range{}
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
	return -1, "", document.Range{}
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
func (p *parser) nonFileOutput(o Output, r document.Range, what string) {
	o.NonFile, o.What, o.PathRange = true, cleanCell(what), r
	p.c.OtherOutputs = append(p.c.OtherOutputs, o)
	p.add(r, Info, CodeNonFileOutput, fmt.Sprintf("%s is not a file; icm shows it but does not write it", o.What))
}

func (p *parser) addOutput(o Output) {
	if paths := expandBraces(o.Path); paths != nil {
		// "output/{north,south}_tide.csv": a file for each word.
		for _, q := range paths {
			one := o
			one.Path, one.Name = q, path.Base(q)
			p.addOutput(one)
		}
		return
	}
	if filled, _ := p.c.vars.Expand(o.Path); filled != o.Path {
		o.Path = filled
	}
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
