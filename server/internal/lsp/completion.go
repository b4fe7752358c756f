package lsp

import (
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
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

// completion offers, by where the cursor is: section headings on a heading
// line; layer annotations and paths (workspace files and earlier stages'
// declared outputs) in Inputs; the path in For each; server and tool names
// in Tools.
func (s *Server) completion(gctx *glsp.Context, p *protocol.CompletionParams) (any, error) {
	ctx := s.ctxOf(gctx)
	if items, isCase, err := s.caseCompletion(p); isCase {
		return items, err
	}
	dc, ok, err := s.contextOf(p.TextDocument.URI)
	defer dc.Release()
	if err == nil && ok && dc.c == nil && isConfig(dc) {
		return s.configCompletion(ctx, dc, p.Position)
	}
	if err != nil || !ok || dc.c == nil {
		return nil, err
	}
	line, lineStart, off, err := lineText(dc.doc, p.Position)
	if err != nil {
		return nil, err
	}
	prefix := line[:off-lineStart]
	replace := func(from int) protocol.Range { // from: byte index in prefix
		m := dc.doc.Mapper()
		return toRange(m, contract.Range{Start: lineStart + from, End: off})
	}
	if headingPrefix.MatchString(prefix) && strings.Contains(prefix, "#") {
		return headingItems(dc.c, replace(strings.Index(prefix, "#"))), nil
	}
	switch sectionAt(dc.c, off) {
	case contract.KindInputs:
		if strings.Contains(prefix, "|") {
			cellStart := strings.LastIndex(prefix, "|") + 1
			typed := strings.TrimLeft(prefix[cellStart:], " ")
			return s.pathItems(ctx, dc, replace(len(prefix)-len(typed)))
		}
		if mm := layerPath.FindStringSubmatchIndex(prefix); mm != nil {
			return s.pathItems(ctx, dc, replace(mm[2]))
		}
		if listStart.MatchString(prefix) {
			at := strings.IndexAny(prefix, "-*+") + 1
			for at < len(prefix) && prefix[at] == ' ' {
				at++
			}
			return layerItems(replace(at)), nil
		}
	case contract.KindForEach:
		if i := strings.Index(prefix, " in "); i >= 0 {
			at := i + len(" in ")
			for at < len(prefix) && prefix[at] == ' ' {
				at++
			}
			return s.pathItems(ctx, dc, replace(at))
		}
	case contract.KindTools:
		colon := strings.Index(prefix, ":")
		if colon < 0 {
			at := len(prefix) - len(strings.TrimLeft(prefix, " -*+"))
			return serverItems(dc.st, replace(at)), nil
		}
		server := strings.Trim(strings.TrimLeft(prefix[:colon], " -*+"), " `")
		at := max(strings.LastIndex(prefix, ","), colon) + 1
		for at < len(prefix) && prefix[at] == ' ' {
			at++
		}
		return s.toolItems(ctx, dc, server, prefix[colon+1:], replace(at))
	}
	return nil, nil
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

func item(label string, kind protocol.CompletionItemKind, detail, newText string, r protocol.Range) protocol.CompletionItem {
	k := kind
	it := protocol.CompletionItem{Label: label, Kind: &k, TextEdit: protocol.TextEdit{Range: r, NewText: newText}}
	if detail != "" {
		it.Detail = &detail
	}
	return it
}

func headingItems(c *contract.Contract, r protocol.Range) []protocol.CompletionItem {
	have := map[string]bool{}
	for _, sec := range c.Sections {
		have[strings.ToLower(sec.Name)] = true
	}
	var out []protocol.CompletionItem
	for _, h := range sectionHeadings {
		if have[strings.ToLower(h)] {
			continue
		}
		out = append(out, item("## "+h, protocol.CompletionItemKindKeyword, "contract section", "## "+h, r))
	}
	return out
}

func layerItems(r protocol.Range) []protocol.CompletionItem {
	return []protocol.CompletionItem{
		item("Layer 4 (working): ", protocol.CompletionItemKindKeyword, "working material: what this run transforms (user part)", "Layer 4 (working): ", r),
		item("Layer 3 (reference): ", protocol.CompletionItemKindKeyword, "reference: rules that stay the same every run (system part)", "Layer 3 (reference): ", r),
	}
}

func serverItems(st *snapshot.Workspace, r protocol.Range) []protocol.CompletionItem {
	names, location := st.Servers()
	out := []protocol.CompletionItem{item("none", protocol.CompletionItemKindKeyword, "this stage uses no tools", "none", r)}
	for _, name := range names {
		where, _ := location(name)
		out = append(out, item(name, protocol.CompletionItemKindModule, "MCP server from "+where, name+": ", r))
	}
	return out
}

// toolItems lists a server's tools not yet on the line. Listing starts the
// server once (the catalog keeps the answer); the request's context bounds
// the wait, so a client that cancels is not held up.
func (s *Server) toolItems(ctx context.Context, dc *docContext, server, rest string, r protocol.Range) (any, error) {
	infos, err := dc.st.ToolsOf(ctx, server)
	if err != nil {
		return nil, nil // an unknown or broken server has a diagnostic already
	}
	named := map[string]bool{}
	for _, part := range strings.Split(rest, ",") {
		named[strings.Trim(part, " `")] = true
	}
	out := []protocol.CompletionItem{item("*", protocol.CompletionItemKindKeyword, "every tool of "+server, "*", r)}
	for _, t := range infos {
		if named[t.Name] {
			continue
		}
		out = append(out, item(t.Name, protocol.CompletionItemKindFunction, snapshot.FirstLine(t.Description), t.Name, r))
	}
	return out, nil
}

// pathItems offers the workspace's files and the outputs earlier stages
// declare, written relative to the stage folder.
func (s *Server) pathItems(ctx context.Context, dc *docContext, r protocol.Range) (any, error) {
	a, err := dc.st.Snapshot(ctx)
	defer a.Release()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []protocol.CompletionItem
	add := func(rel, detail string) {
		fromStage, err := filepath.Rel(dc.stage.Dir, dc.ws.Abs(rel))
		if err != nil {
			return
		}
		fromStage = filepath.ToSlash(fromStage)
		if seen[fromStage] || len(out) >= maxPathItems {
			return
		}
		seen[fromStage] = true
		out = append(out, item(fromStage, protocol.CompletionItemKindFile, detail, fromStage, r))
	}
	var produced []string
	for rel, producer := range a.Report().ProducedBy {
		if stg, err := dc.ws.Stage(producer); err == nil && stg.Index < dc.stage.Index {
			produced = append(produced, rel)
		}
	}
	sort.Strings(produced)
	for _, rel := range produced {
		add(rel, "output of "+a.Report().ProducedBy[rel])
	}
	for _, rel := range workspaceFiles(dc.ws, dc.stage) {
		add(rel, "")
	}
	return protocol.CompletionList{IsIncomplete: len(out) >= maxPathItems, Items: out}, nil
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
