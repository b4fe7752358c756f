package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// previewLines is how many lines of a file or a context part a hover shows.
const previewLines = 12

func (s *Server) hover(gctx *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	ctx := s.ctxOf(gctx)
	if h, isCase, err := s.caseHover(p); isCase {
		return h, err
	}
	dc, ok, err := s.contextOf(p.TextDocument.URI)
	if err != nil || !ok {
		dc.Release()
		return nil, err
	}
	if dc.c == nil && isConfig(dc) {
		defer dc.Release()
		return s.configHover(ctx, dc, p.Position)
	}
	if dc.c == nil {
		if h := s.outputFileHover(ctx, dc, p.Position); h != nil {
			defer dc.Release()
			return h, nil
		}
	}
	dc, t, ok, err := targetIn(dc, p.Position)
	defer dc.Release()
	if err != nil || !ok {
		return nil, err
	}
	var text string
	switch t.kind {
	case onTitle:
		dc.st.AwaitWindow(ctx)
		a, err := dc.st.Snapshot(ctx)
		defer a.Release()
		if err != nil {
			return nil, err
		}
		text = s.stageHover(dc, a)
	case onInput:
		a, err := dc.st.Snapshot(ctx)
		defer a.Release()
		if err != nil {
			return nil, err
		}
		text = inputHover(dc, a, t.input)
	case onOutput:
		text = outputHover(dc, t.output)
	case onForEach:
		a, err := dc.st.Snapshot(ctx)
		defer a.Release()
		if err != nil {
			return nil, err
		}
		text = forEachHover(dc, a)
	case onTool:
		text = toolHover(ctx, dc, t.server.Server, t.tool.Name)
	case onServer:
		text = serverHover(ctx, dc, t.server.Server)
	}
	if text == "" {
		return nil, nil
	}
	r := toRange(dc.doc.Mapper(), t.rng)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: text}, Range: &r}, nil
}

// stageHover is the assembled context of the stage: the per-part token
// table, the total against the model's window, and both texts shortened.
func (s *Server) stageHover(dc *docContext, a *snapshot.Snapshot) string {
	sr := a.StageOfContract(dc.doc.Path)
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", dc.stage.Name)
	if sr == nil || sr.Context == nil {
		b.WriteString("\n\nThe context cannot be assembled until the errors in this contract are fixed.")
		return b.String()
	}
	cx := sr.Context
	fmt.Fprintf(&b, " · ~%d tokens (system %d, user %d), estimated with %s\n\n", cx.Total, cx.SystemTokens, cx.UserTokens, cx.Estimator)
	total := cx.Total
	if n := a.Count(dc.stage.Name); n != nil {
		// What the server will see: the chat template's tokens included.
		total = n.First.Tokens
		fmt.Fprintf(&b, "First call: %s\n\n", countLine(n))
	}
	model := dc.st.ModelName()
	b.WriteString(windowLine(total, a.Window(), model))
	if sr.Items >= 0 {
		calls := plural(sr.Items, "call")
		if n := a.Count(dc.stage.Name); n != nil && len(n.Items) > 0 {
			calls = callsText(n)
		}
		fmt.Fprintf(&b, "\n\nFor each: %s in the whole stage's first calls, one per item, each with the item added to the user part.", calls)
	}
	if line := lastRunLine(dc.ws.Disk, dc.stage.Dir); line != "" {
		b.WriteString("\n\n" + line)
	}
	b.WriteString("\n\n")
	b.WriteString(partsTable(cx, a.Count(dc.stage.Name), 0))
	b.WriteString("\n**System**\n\n")
	b.WriteString(fenced(shorten(cx.System, previewLines)))
	b.WriteString("\n**User**\n\n")
	b.WriteString(fenced(shorten(cx.User, previewLines)))
	return b.String()
}

// windowLine compares a context with the model's window.
func windowLine(total, window int, model string) string {
	if model == "" {
		model = "the model"
	}
	switch {
	case window <= 0:
		return fmt.Sprintf("Context window of %s: unknown (the model server did not answer).", model)
	case total+session.AnswerRoom > window:
		return fmt.Sprintf("⚠ **Does not fit**: %s has a %d-token window; this context needs %d plus at least %d for the answer. Section-scope or trim the inputs.", model, window, total, session.AnswerRoom)
	default:
		return fmt.Sprintf("Fits the %d-token window of %s, leaving %d tokens for the answer.", window, model, window-total)
	}
}

// partsTable renders the token count of every part, as `icm probe`
// does, then what the first call adds as the server sees it: the tool
// definitions and the chat template (n may be nil: not counted; item
// picks a For each item's call, 0 the first).
func partsTable(cx *assemble.Context, n *promptcount.Stage, item int) string {
	var b strings.Builder
	b.WriteString("| part | layer | role | tokens |\n| --- | --- | --- | ---: |\n")
	for _, p := range cx.Parts {
		label := cell(p.Label)
		if n := p.Note(); n != "" {
			label += " *(" + n + ")*"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", label, p.LayerName(), p.Role, p.Tokens)
	}
	fmt.Fprintf(&b, "| headings and framing | | | %d |\n| **total** | | | **%d** |\n", cx.Framing(), cx.Total)
	if n == nil {
		return b.String()
	}
	first := n.First
	if item > 0 && item <= len(n.Items) {
		first = n.Items[item-1].Count
	}
	if n.ToolDefs > 0 {
		fmt.Fprintf(&b, "| tool definitions (%d tools, %s) | tools | system | %d |\n", n.ToolDefs, first.Label(), n.Tools)
	}
	fmt.Fprintf(&b, "| **first call as the server sees it** (%s) | | | **%d** |\n", first.Label(), first.Tokens)
	return b.String()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// shorten keeps the first n lines of s and says how many were left out.
func shorten(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}

// fenced puts text in a code fence longer than any backtick run inside it.
func fenced(text string) string { return markdown.Fence("text", text) }

// inputHover previews an input: a file's first lines and its token count,
// what a folder, glob or placeholder leads to, or why nothing is loaded.
// It finds the files as the loader does (assemble.Locate).
func inputHover(dc *docContext, a *snapshot.Snapshot, in *contract.Input) string {
	if in.NonFile {
		return fmt.Sprintf("**%s**: not a file; shown in the contract, never loaded.", cell(in.What))
	}
	loc, err := assemble.Locate(a.Workspace(), dc.stage, *in)
	if err != nil {
		return fmt.Sprintf("**%s**: %v", in.Path, err)
	}
	layer := "working material (layer 4, user part)"
	if in.Layer == contract.LayerReference {
		layer = "reference (layer 3, system part)"
	}
	head := fmt.Sprintf("**%s** · %s", loc.Rel, layer)
	if loc.Base != "" && loc.Base != workspace.BaseStage {
		head += " · found from the " + string(loc.Base)
	}
	switch {
	case in.Templated && len(loc.Matches) > 1:
		return head + fmt.Sprintf("\n\nA placeholder that %d files fit (%s): icm loads none; name the one to use.", len(loc.Matches), strings.Join(loc.Matches, ", "))
	case in.Templated && !loc.Exists:
		return head + "\n\nHolds a placeholder; icm loads the file that fits it once there is exactly one."
	case !loc.Exists && in.Glob:
		return head + "\n\nNo file matches."
	case !loc.Exists && loc.Own:
		return head + "\n\nThe stage's own output: no previous version yet."
	case !loc.Exists:
		if producer := a.Report().ProducedBy[loc.Rel]; producer != "" {
			return head + fmt.Sprintf("\n\nNot produced yet: stage %s writes it.", producer)
		}
		if in.Optional {
			return head + "\n\nOptional, and not there: the stage runs without it."
		}
		return head + "\n\nThe file does not exist."
	case loc.Dir || in.Glob:
		if len(loc.Files) == 0 {
			return head + "\n\nAn empty folder: nothing is loaded from it yet."
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s · %d files\n", head, len(loc.Files))
		for _, f := range loc.Files {
			fmt.Fprintf(&b, "\n- %s", a.Workspace().InputRel(f))
		}
		return b.String()
	}
	abs := loc.Files[0]
	src, err := a.Workspace().ReadInput(abs)
	if err != nil {
		return head + fmt.Sprintf("\n\n%v", err)
	}
	if in.Templated {
		head = fmt.Sprintf("**%s** (fits %s) · %s", a.Workspace().InputRel(abs), loc.Rel, layer)
	}
	if document.IsBinary(src) {
		return head + fmt.Sprintf("\n\nA binary file (%d bytes): the model is given its path and size only.", len(src))
	}
	text := string(src)
	if sc := assemble.Effective(src, in.Scope); sc != nil {
		if sel, err := assemble.Select(src, sc); err == nil {
			text = sel
		}
	}
	n := tokens.Estimate(text)
	lines := strings.Count(text, "\n") + 1
	head += fmt.Sprintf(" · ~%d tokens, %d lines", n, lines)
	if in.Scope != nil {
		head += " · section: " + in.Scope.Raw
	}
	return head + "\n\n" + fenced(shorten(text, previewLines))
}

// outputHover says where an output goes and whether it exists.
func outputHover(dc *docContext, o *contract.Output) string {
	abs, err := dc.ws.Resolve(dc.stage.Dir, o.Path)
	if err != nil {
		return fmt.Sprintf("**%s**: %v", o.Path, err)
	}
	rel := dc.ws.Rel(abs)
	src, err := dc.ws.Files.ReadFile(abs)
	if err != nil {
		return fmt.Sprintf("**%s**: written when %s runs; not there yet.", rel, dc.stage.Name)
	}
	return fmt.Sprintf("**%s** · ~%d tokens\n\n%s", rel, tokens.Estimate(string(src)), fenced(shorten(string(src), previewLines)))
}

// forEachHover lists the items the stage would run.
func forEachHover(dc *docContext, a *snapshot.Snapshot) string {
	fe := dc.c.ForEach
	abs, err := dc.ws.Resolve(dc.stage.Dir, fe.Path)
	if err != nil {
		return fmt.Sprintf("**For each %s**: %v", fe.Item, err)
	}
	rel := dc.ws.Rel(abs)
	src, err := a.Workspace().Files.ReadFile(abs)
	if err != nil {
		if producer := a.Report().ProducedBy[rel]; producer != "" {
			return fmt.Sprintf("**For each %s in %s**: not produced yet; stage %s writes it. The items are its `##` sections.", fe.Item, rel, producer)
		}
		return fmt.Sprintf("**For each %s in %s**: the file does not exist.", fe.Item, rel)
	}
	items := check.Items(src)
	var b strings.Builder
	fmt.Fprintf(&b, "**For each %s in %s**: %d items, one model call each\n\n", fe.Item, rel, len(items))
	for i, it := range items {
		fmt.Fprintf(&b, "%d. %s\n", i+1, it.Title)
	}
	return b.String()
}

// toolHover shows a tool's description and parameters, as its server
// lists them.
func toolHover(ctx context.Context, dc *docContext, server, name string) string {
	infos, err := dc.st.ToolsOf(ctx, server)
	if err != nil {
		return fmt.Sprintf("**%s: %s**\n\nUnable to list the tools of %s: %v", server, name, server, err)
	}
	for _, t := range infos {
		if t.Name == name {
			return describeTool(t)
		}
	}
	names := make([]string, 0, len(infos))
	for _, t := range infos {
		names = append(names, t.Name)
	}
	return fmt.Sprintf("**%s: %s**\n\n%s has no tool %q; it offers: %s", server, name, server, name, strings.Join(names, ", "))
}

// serverHover lists a server's tools.
func serverHover(ctx context.Context, dc *docContext, server string) string {
	_, location := dc.st.Servers()
	where, ok := location(server)
	if !ok {
		return fmt.Sprintf("**%s**: not configured. Add `[mcp.servers.%s]` to config.toml.", server, server)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · MCP server from %s\n\n", server, where)
	infos, err := dc.st.ToolsOf(ctx, server)
	if err != nil {
		fmt.Fprintf(&b, "Unable to list its tools: %v", err)
		return b.String()
	}
	for _, t := range infos {
		fmt.Fprintf(&b, "- `%s`: %s\n", t.Name, firstLine(t.Description))
	}
	return b.String()
}

func describeTool(t session.ToolInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s: %s** · the model calls it `%s`\n\n", t.Server, t.Name, t.Exposed)
	if t.Description != "" {
		b.WriteString(t.Description)
		b.WriteString("\n\n")
	}
	params := schemaParams(t.InputSchema)
	if len(params) == 0 {
		b.WriteString("No parameters.")
		return b.String()
	}
	b.WriteString("| parameter | type | required | description |\n| --- | --- | --- | --- |\n")
	for _, p := range params {
		req := ""
		if p.required {
			req = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.name, cell(p.typ), req, cell(firstLine(p.desc)))
	}
	return b.String()
}

type param struct {
	name, typ, desc string
	required        bool
}

// schemaParams reads the top-level properties of a JSON Schema.
func schemaParams(raw json.RawMessage) []param {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	out := make([]param, 0, len(s.Properties))
	for name, p := range s.Properties {
		typ := ""
		switch t := p.Type.(type) {
		case string:
			typ = t
		case []any:
			var parts []string
			for _, x := range t {
				parts = append(parts, fmt.Sprint(x))
			}
			typ = strings.Join(parts, " or ")
		}
		out = append(out, param{name: name, typ: typ, desc: p.Description, required: req[name]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].required != out[j].required {
			return out[i].required
		}
		return out[i].name < out[j].name
	})
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// lastRunLine is what the stage's last finished run really used, from its
// run record: "Last run: 4,504 tokens in / 312 out · 12.3 s · qwen3.5:9b ·
// 3 model calls, 5 tool calls (2 failed)"; "" when it never finished one.
func lastRunLine(disk *workspace.Root, stageDir string) string {
	rec, err := state.ReadRecord(disk, stageDir)
	if err != nil || rec == nil || rec.Status != state.RunDone {
		return ""
	}
	line := fmt.Sprintf("Last run: %s tokens in / %s out · %s", thousands(rec.PromptTokens), thousands(rec.OutputTokens), rec.Finished.Sub(rec.Started).Round(100*time.Millisecond))
	if rec.Model != "" {
		line += " · " + rec.Model
	}
	line += fmt.Sprintf(" · %s", plural(rec.ModelCalls, "model call"))
	if rec.ToolCalls > 0 {
		line += ", " + plural(rec.ToolCalls, "tool call")
		if rec.ToolErrors > 0 {
			line += fmt.Sprintf(" (%d failed)", rec.ToolErrors)
		}
	}
	return line
}

// thousands writes 4504 as 4,504.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
