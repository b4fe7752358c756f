package snapshot

import (
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// maxPathItems bounds the path completions offered at once.
const maxPathItems = 400

// sectionHeadings are the sections a contract may have, in the usual order.
var sectionHeadings = []string{"Inputs", "Tools", "For each", "Process", "Outputs", "Model", "Verify", "Script", "Gate"}

var (
	headingPrefix = regexp.MustCompile(`^\s{0,3}#{1,2}\s*[A-Za-z ]*$`)
	listStart     = regexp.MustCompile(`^\s*[-*+]\s+[A-Za-z0-9 ()]*$`)
	layerPath     = regexp.MustCompile(`^\s*[-*+]\s+[^:]*:\s*(\S*)$`)
)

// ItemKind is what a completion names.
type ItemKind int

// The kinds of completion.
const (
	KindText ItemKind = iota
	KindKeyword
	KindModule
	KindFunction
	KindFile
	KindProperty
	KindValue
)

// Item is one completion: Insert replaces Range (a byte range of the
// buffer that ends at the cursor). Detail, Doc (Markdown) and Filter are
// left out when empty; Snippet says Insert is in LSP snippet syntax.
type Item struct {
	Label   string
	Kind    ItemKind
	Detail  string
	Doc     string
	Filter  string
	Insert  string
	Range   document.Range
	Snippet bool
}

// Completion is what may be written at the cursor: a list of items (nil
// when there is nothing to offer, empty when the place takes items but
// none fits). Paths come as a List, which Incomplete says was cut short.
type Completion struct {
	Items      []Item
	List       bool
	Incomplete bool
}

// items makes a Completion of bare items.
func items(it []Item) *Completion { return &Completion{Items: it} }

// Complete offers, by where the cursor is: in a contract, section
// headings on a heading line, layer annotations and paths (workspace
// files and earlier stages' declared outputs, from the snapshot that
// includes the buffer) in Inputs, the path in For each, server and tool
// names in Tools (a server not listed yet is listed within ctx); in
// config.toml keys, tables and values; in a test case its sections,
// files and expectation forms. nil when there is nothing to offer.
func (f *File) Complete(ctx context.Context, pos document.Position) (*Completion, error) {
	if cf := f.asCase(); cf != nil {
		return f.caseCompletion(cf, pos)
	}
	if f.Contract == nil && f.isConfig() {
		return f.configCompletion(ctx, pos)
	}
	if f.Contract == nil {
		return nil, nil
	}
	line, lineStart, off, err := lineText(f.Doc, pos)
	if err != nil {
		return nil, err
	}
	prefix := line[:off-lineStart]
	replace := func(from int) document.Range { // from: byte index in prefix
		return document.Range{Start: lineStart + from, End: off}
	}
	if headingPrefix.MatchString(prefix) && strings.Contains(prefix, "#") {
		return items(f.headingItems(replace(strings.Index(prefix, "#")))), nil
	}
	switch sectionAt(f.Contract, off) {
	case contract.KindInputs:
		if strings.Contains(prefix, "|") {
			cellStart := strings.LastIndex(prefix, "|") + 1
			typed := strings.TrimLeft(prefix[cellStart:], " ")
			return f.pathItems(ctx, replace(len(prefix)-len(typed)))
		}
		if mm := layerPath.FindStringSubmatchIndex(prefix); mm != nil {
			return f.pathItems(ctx, replace(mm[2]))
		}
		if listStart.MatchString(prefix) {
			at := strings.IndexAny(prefix, "-*+") + 1
			for at < len(prefix) && prefix[at] == ' ' {
				at++
			}
			return items(layerItems(replace(at))), nil
		}
	case contract.KindForEach:
		if i := strings.Index(prefix, " in "); i >= 0 {
			at := i + len(" in ")
			for at < len(prefix) && prefix[at] == ' ' {
				at++
			}
			return f.pathItems(ctx, replace(at))
		}
	case contract.KindTools:
		colon := strings.Index(prefix, ":")
		if colon < 0 {
			at := len(prefix) - len(strings.TrimLeft(prefix, " -*+"))
			return items(f.serverItems(replace(at))), nil
		}
		server := strings.Trim(strings.TrimLeft(prefix[:colon], " -*+"), " `")
		at := max(strings.LastIndex(prefix, ","), colon) + 1
		for at < len(prefix) && prefix[at] == ' ' {
			at++
		}
		return f.toolItems(ctx, server, prefix[colon+1:], replace(at)), nil
	}
	return nil, nil
}

// lineText returns the text of the line holding position p, and the byte
// offset p has in the document.
func lineText(d *document.Doc, p document.Position) (line string, lineStart, off int, err error) {
	m := d.Mapper()
	off, err = offset(m, p)
	if err != nil {
		return "", 0, 0, err
	}
	r, err := m.LineRange(p.Line)
	if err != nil {
		return "", 0, 0, err
	}
	return string(d.Text[r.Start:r.End]), r.Start, off, nil
}

// sectionAt returns the kind of the section holding off.
func sectionAt(c *contract.Contract, off int) string {
	for _, sec := range c.Sections {
		if off >= sec.Range.Start && off <= sec.Range.End {
			return sec.Kind
		}
	}
	return ""
}

func item(label string, kind ItemKind, detail, insert string, r document.Range) Item {
	return Item{Label: label, Kind: kind, Detail: detail, Insert: insert, Range: r}
}

func (f *File) headingItems(r document.Range) []Item {
	have := map[string]bool{}
	for _, sec := range f.Contract.Sections {
		have[strings.ToLower(sec.Name)] = true
	}
	var out []Item
	for _, h := range sectionHeadings {
		if have[strings.ToLower(h)] {
			continue
		}
		out = append(out, item("## "+h, KindKeyword, "contract section", "## "+h, r))
	}
	return out
}

func layerItems(r document.Range) []Item {
	return []Item{
		item("Layer 4 (working): ", KindKeyword, "working material: what this run transforms (user part)", "Layer 4 (working): ", r),
		item("Layer 3 (reference): ", KindKeyword, "reference: rules that stay the same every run (system part)", "Layer 3 (reference): ", r),
	}
}

func (f *File) serverItems(r document.Range) []Item {
	names, location := f.w.servers()
	out := []Item{item("none", KindKeyword, "this stage uses no tools", "none", r)}
	for _, name := range names {
		where, _ := location(name)
		out = append(out, item(name, KindModule, "MCP server from "+where, name+": ", r))
	}
	return out
}

// toolItems lists a server's tools not yet on the line. Listing starts the
// server once (the catalog keeps the answer); the request's context bounds
// the wait, so a client that cancels is not held up.
func (f *File) toolItems(ctx context.Context, server, rest string, r document.Range) *Completion {
	infos, err := f.w.toolsOf(ctx, server)
	if err != nil {
		return nil // an unknown or broken server has a diagnostic already
	}
	named := map[string]bool{}
	for _, part := range strings.Split(rest, ",") {
		named[strings.Trim(part, " `")] = true
	}
	out := []Item{item("*", KindKeyword, "every tool of "+server, "*", r)}
	for _, t := range infos {
		if named[t.Name] {
			continue
		}
		out = append(out, item(t.Name, KindFunction, FirstLine(t.Description), t.Name, r))
	}
	return items(out)
}

// pathItems offers the workspace's files and the outputs earlier stages
// declare, written relative to the stage folder.
func (f *File) pathItems(ctx context.Context, r document.Range) (*Completion, error) {
	snap, err := f.w.Snapshot(ctx)
	defer snap.Release()
	if err != nil {
		return nil, err
	}
	ws := f.ws()
	seen := map[string]bool{}
	var out []Item
	add := func(rel, detail string) {
		fromStage, err := filepath.Rel(f.Stage.Dir, ws.Abs(rel))
		if err != nil {
			return
		}
		fromStage = filepath.ToSlash(fromStage)
		if seen[fromStage] || len(out) >= maxPathItems {
			return
		}
		seen[fromStage] = true
		out = append(out, item(fromStage, KindFile, detail, fromStage, r))
	}
	var produced []string
	for rel, producer := range snap.report.ProducedBy {
		if stg, err := ws.Stage(producer); err == nil && stg.Index < f.Stage.Index {
			produced = append(produced, rel)
		}
	}
	sort.Strings(produced)
	for _, rel := range produced {
		add(rel, "output of "+snap.report.ProducedBy[rel])
	}
	for _, rel := range workspaceFiles(ws, f.Stage) {
		add(rel, "")
	}
	return &Completion{Items: out, List: true, Incomplete: len(out) >= maxPathItems}, nil
}

// workspaceFiles lists the files a contract could read: everything in the
// workspace but run state, history, the stage's own outputs and later
// stages' folders.
func workspaceFiles(ws *workspace.Workspace, self *workspace.Stage) []string {
	later := map[string]bool{}
	for _, st := range ws.Stages {
		if st.Index >= self.Index && st != self {
			later[st.Rel] = true
		}
	}
	var out []string
	_ = ws.Disk.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || name == workspace.HistoryDir || name == "node_modules" || later[p] ||
				p == self.Rel+"/"+workspace.OutputDir) {
				return fs.SkipDir
			}
			return nil
		}
		if p == self.ContractRel() || len(out) >= maxPathItems {
			return nil
		}
		out = append(out, p)
		return nil
	})
	return out
}
