package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Hover is what a hover shows: Markdown about the text in Range, a byte
// range of the file's buffer (none when nil).
type Hover struct {
	Markdown string
	Range    *document.Range
}

// Hover says what is at pos. In a contract: on the title the stage's
// assembled context with its counts (waiting for the snapshot that
// includes the buffer, and for a first answer about the model's window);
// on an input what the loader finds; on an output where it goes; on For
// each the items; on a tool or a server what the server lists (waiting
// within ctx for a server not listed yet). In config.toml the key; in a
// test case the element; on the first line of a stage's output its
// state and review checklist. nil when there is nothing to say.
func (f *File) Hover(ctx context.Context, pos document.Position) (*Hover, error) {
	if cf := f.asCase(); cf != nil {
		return f.caseHover(cf, pos)
	}
	if f.Contract == nil && f.isConfig() {
		return f.configHover(pos), nil
	}
	if f.Contract == nil {
		if h := f.outputFileHover(ctx, pos); h != nil {
			return h, nil
		}
		if h := f.evidenceHover(ctx, pos); h != nil {
			return h, nil
		}
	}
	t, ok, err := f.targetAt(pos)
	if err != nil || !ok {
		return nil, err
	}
	var text string
	switch t.kind {
	case onTitle, onInput, onForEach:
		if t.kind == onTitle {
			f.w.awaitWindow(ctx)
		}
		snap, err := f.w.Snapshot(ctx)
		defer snap.Release()
		if err != nil {
			return nil, err
		}
		switch t.kind {
		case onTitle:
			text = f.stageHover(snap)
		case onInput:
			text = f.inputHover(snap, t.input)
		default:
			text = f.forEachHover(snap)
		}
	case onOutput:
		text = f.outputHover(t.output)
	case onTool:
		text = f.toolHover(ctx, t.server.Server, t.tool.Name)
	case onServer:
		text = f.serverHover(ctx, t.server.Server)
	}
	if text == "" {
		return nil, nil
	}
	return &Hover{Markdown: text, Range: &t.rng}, nil
}

// stageHover is the assembled context of the stage: the per-part token
// table, the total against the model's window, and both texts shortened.
func (f *File) stageHover(snap *Snapshot) string {
	sr := snap.stageOfContract(f.Doc.Path)
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", f.Stage.Name)
	if sr == nil || sr.Context == nil {
		b.WriteString("\n\nThe context cannot be assembled until the errors in this contract are fixed.")
		return b.String()
	}
	cx := sr.Context
	fmt.Fprintf(&b, " · %s\n\n", contextLine(cx))
	total := cx.Total
	n := snap.counts[f.Stage.Name]
	if n != nil {
		// What the server will see: the chat template's tokens included.
		total = n.First.Tokens
		fmt.Fprintf(&b, "First call: %s\n\n", countLine(n))
	}
	b.WriteString(windowLine(total, snap.window, f.w.modelName(), f.o.sess.Trust().ModelServerWaits()))
	if sr.Items >= 0 {
		calls := human.Plural(sr.Items, "call")
		if n != nil && len(n.Items) > 0 {
			calls = callsText(n)
		}
		fmt.Fprintf(&b, "\n\nFor each: %s in the whole stage's first calls, one per item, each with the item added to the user part.", calls)
	}
	if line := lastRunLine(f.ws().Disk, f.Stage.Dir); line != "" {
		b.WriteString("\n\n" + line)
	}
	b.WriteString("\n\n")
	b.WriteString(partsTable(cx, n, 0))
	b.WriteString("\n**System**\n\n")
	b.WriteString(fenced(shorten(cx.System, previewLines)))
	b.WriteString("\n**User**\n\n")
	b.WriteString(fenced(shorten(cx.User, previewLines)))
	return b.String()
}

// windowLine compares a context with the model's window; untrusted says
// the server was not asked because the workspace is not trusted.
func windowLine(total, window int, model string, untrusted bool) string {
	if model == "" {
		model = "the model"
	}
	switch {
	case window <= 0 && untrusted:
		return fmt.Sprintf("Context window of %s: unknown until the workspace is trusted (icm asks no model server a workspace names before).", model)
	case window <= 0:
		return fmt.Sprintf("Context window of %s: unknown (the model server did not answer).", model)
	case total+tokens.MinAnswerRoom > window:
		return fmt.Sprintf("⚠ **Does not fit**: %s has a %s-token window; this context needs %s plus at least %s for the answer. Section-scope or trim the inputs.", model, human.Count(window), human.Count(total), human.Count(tokens.MinAnswerRoom))
	default:
		return fmt.Sprintf("Fits the %s-token window of %s, leaving %s for the answer (each call's own window is sized to its prompt and answer, up to this).", human.Count(window), model, human.Tokens(window-total))
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
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", label, p.LayerName(), p.Role, human.Count(p.Tokens))
	}
	fmt.Fprintf(&b, "| headings and framing | | | %s |\n| **total** | | | **%s** |\n", human.Count(cx.Framing()), human.Count(cx.Total))
	if n == nil {
		return b.String()
	}
	first := n.First
	if item > 0 && item <= len(n.Items) {
		first = n.Items[item-1].Count
	}
	if n.ToolDefs > 0 {
		fmt.Fprintf(&b, "| tool definitions (%d tools, %s) | tools | system | %s |\n", n.ToolDefs, first.Label(), human.Count(n.Tools))
	}
	fmt.Fprintf(&b, "| **first call as the server sees it** (%s) | | | **%s** |\n", first.Label(), human.Count(first.Tokens))
	return b.String()
}

// inputHover previews an input: a file's first lines and its token count,
// what a folder, glob or placeholder leads to, or why nothing is loaded.
// It finds the files as the loader does (assemble.Locate).
func (f *File) inputHover(snap *Snapshot, in *contract.Input) string {
	if in.NonFile {
		return fmt.Sprintf("**%s**: not a file; shown in the contract, never loaded.", cell(in.What))
	}
	view := snap.view
	loc, err := assemble.Locate(view, f.Stage, *in)
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
		if producer := snap.report.ProducedBy[loc.Rel]; producer != "" {
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
		for _, file := range loc.Files {
			fmt.Fprintf(&b, "\n- %s", view.InputRel(file))
		}
		return b.String()
	}
	abs := loc.Files[0]
	src, err := view.ReadInput(abs)
	if err != nil {
		return head + fmt.Sprintf("\n\n%v", err)
	}
	if in.Templated {
		head = fmt.Sprintf("**%s** (fits %s) · %s", view.InputRel(abs), loc.Rel, layer)
	}
	if document.IsBinary(src) {
		return head + fmt.Sprintf("\n\nA binary file (%s): the model is given its path and size only.", human.Size(int64(len(src))))
	}
	text := string(src)
	if sc := assemble.Effective(src, in.Scope); sc != nil {
		if sel, err := assemble.Select(src, sc); err == nil {
			text = sel
		}
	}
	n := tokens.Estimate(text)
	lines := strings.Count(text, "\n") + 1
	head += fmt.Sprintf(" · %s, %s", human.Estimate(n), human.Plural(lines, "line"))
	if in.Scope != nil {
		head += " · section: " + in.Scope.Raw
	}
	return head + "\n\n" + fenced(shorten(text, previewLines))
}

// outputHover says where an output goes and whether it exists.
func (f *File) outputHover(o *contract.Output) string {
	ws := f.ws()
	abs, err := ws.Resolve(f.Stage.Dir, o.Path)
	if err != nil {
		return fmt.Sprintf("**%s**: %v", o.Path, err)
	}
	rel := ws.Rel(abs)
	src, err := ws.Files.ReadFile(abs)
	if err != nil {
		return fmt.Sprintf("**%s**: written when %s runs; not there yet.", rel, f.Stage.Name)
	}
	return fmt.Sprintf("**%s** · %s\n\n%s", rel, approxTokens(tokens.Estimate(string(src))), fenced(shorten(string(src), previewLines)))
}

// forEachHover lists the items the stage would run.
func (f *File) forEachHover(snap *Snapshot) string {
	fe := f.Contract.ForEach
	abs, err := f.ws().Resolve(f.Stage.Dir, fe.Path)
	if err != nil {
		return fmt.Sprintf("**For each %s**: %v", fe.Item, err)
	}
	rel := f.ws().Rel(abs)
	src, err := snap.view.Files.ReadFile(abs)
	if err != nil {
		if producer := snap.report.ProducedBy[rel]; producer != "" {
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
func (f *File) toolHover(ctx context.Context, server, name string) string {
	infos, err := f.w.toolsOf(ctx, server)
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
func (f *File) serverHover(ctx context.Context, server string) string {
	_, location := f.w.servers()
	where, ok := location(server)
	if !ok {
		return fmt.Sprintf("**%s**: not configured. Add `[mcp.servers.%s]` to config.toml.", server, server)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · MCP server from %s\n\n", server, where)
	infos, err := f.w.toolsOf(ctx, server)
	if err != nil {
		fmt.Fprintf(&b, "Unable to list its tools: %v", err)
		return b.String()
	}
	for _, t := range infos {
		fmt.Fprintf(&b, "- `%s`: %s\n", t.Name, FirstLine(t.Description))
	}
	return b.String()
}

func describeTool(t report.ToolInfo) string {
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
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.name, cell(p.typ), req, cell(FirstLine(p.desc)))
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

// lastRunLine is what the stage's last finished run really used, from its
// run record: "Last run: " and RecordText; "" when it never finished one.
func lastRunLine(disk *workspace.Root, stageDir string) string {
	rec, err := state.ReadRecord(disk, stageDir)
	if err != nil || rec == nil || rec.Status != state.RunDone {
		return ""
	}
	return "Last run: " + RecordText(rec)
}

// outputFileHover is the hover on the first line of a stage's output
// file, where its lenses stand: the state in words, the rubric's checks
// and the contract's Review Gate, the checklist to review it against. nil
// elsewhere and for files that are no stage's output.
func (f *File) outputFileHover(ctx context.Context, pos document.Position) *Hover {
	if pos.Line != 0 {
		return nil
	}
	stg, _ := f.outputOf()
	if stg == nil {
		return nil
	}
	row := f.w.row(ctx, stg.Name)
	if row == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · %s\n", stg.Name, row.Face.Text())
	if row.Rubric != "" {
		fmt.Fprintf(&b, "\nRubric: %s\n", row.Rubric)
	}
	if len(row.ReviewGate) > 0 {
		b.WriteString("\n**Review Gate** (from the contract):\n\n")
		for _, item := range row.ReviewGate {
			fmt.Fprintf(&b, "- %s\n", item)
		}
	}
	return &Hover{Markdown: b.String()}
}
