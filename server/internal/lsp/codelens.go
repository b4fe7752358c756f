package lsp

import (
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/state"
)

// codeLenses puts Run, Approve, the token count and the state on a
// contract's title; the state, Approve, Compare and Re-run on a stage's
// output file (and Re-run this item on each item of a For each output);
// and on a file that a later stage loops over, how many items that stage
// will run (so a person trimming an outline sees the effect before
// drafting). The state reads as it does in the Pipeline view and `icm
// status`: both come from the same derived face.
func (s *Server) codeLenses(gctx *glsp.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	ctx := s.ctxOf(gctx)
	dc, ok, err := s.contextOf(p.TextDocument.URI)
	defer dc.Release()
	if err != nil || !ok {
		return nil, err
	}
	a, err := dc.st.Snapshot(ctx)
	defer a.Release()
	if err != nil {
		return nil, err
	}
	if dc.c == nil {
		out := s.outputLenses(ctx, dc)
		return append(out, forEachSourceLenses(dc, a)...), nil
	}
	m := dc.doc.Mapper()
	pos, err := m.Position(dc.c.TitleRange.Start)
	if err != nil {
		return nil, nil
	}
	line := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(pos.Line)}, End: protocol.Position{Line: protocol.UInteger(pos.Line)}}
	arg := map[string]any{"workspace": dc.ws.Root, "stage": dc.stage.Name}
	lens := func(title, command string) protocol.CodeLens {
		return protocol.CodeLens{Range: line, Command: &protocol.Command{Title: title, Command: command, Arguments: []any{arg}}}
	}
	allowed := dc.o.Session().Trust().Allowed()
	var out []protocol.CodeLens
	if allowed {
		out = append(out, lens("▶ Run stage", cmdRunStage))
		if sr := a.StageOfContract(dc.doc.Path); sr != nil {
			if l, ok := testLens(sr, line, arg); ok {
				out = append(out, l)
			}
		}
	} else {
		// No run: the workspace names what it would run, contact or
		// read, and its person has not trusted it. The lens says so and
		// lists what trust covers.
		out = append(out, protocol.CodeLens{Range: line, Command: &protocol.Command{Title: "Trust this workspace to run it",
			Command: cmdTrustList, Arguments: []any{map[string]any{"workspace": dc.ws.Root}}}})
	}
	row := dc.st.Row(ctx, dc.stage.Name)
	if row != nil && row.Status == string(state.Awaiting) {
		out = append(out, lens("✓ Approve", cmdApprove))
	}
	if sr := a.StageOfContract(dc.doc.Path); sr != nil && sr.Context != nil {
		title := approxTokens(sr.Context.Total)
		if n := a.Count(dc.stage.Name); n != nil && len(n.Items) > 1 {
			title = callsText(n)
		}
		out = append(out, lens(title, cmdProbe))
	}
	if row != nil {
		out = append(out, lens(row.Face.Text(), cmdStatus))
	}
	return out, nil
}

// approxTokens is a token count for a lens: "~819 tokens", "~5.2k tokens".
func approxTokens(n int) string {
	if n < 1000 {
		return fmt.Sprintf("~%d tokens", n)
	}
	k := fmt.Sprintf("%.1f", float64(n)/1000)
	return "~" + strings.TrimSuffix(k, ".0") + "k tokens"
}

// forEachSourceLenses finds the stages that loop over this file.
func forEachSourceLenses(dc *docContext, a *snapshot.Snapshot) []protocol.CodeLens {
	var out []protocol.CodeLens
	items := -1
	for _, sr := range a.Report().Stages {
		if sr.Contract == nil || sr.Contract.ForEach == nil {
			continue
		}
		abs, err := a.Workspace().Resolve(sr.Stage.Dir, sr.Contract.ForEach.Path)
		if err != nil || abs != dc.doc.Path {
			continue
		}
		if items < 0 {
			items = len(check.Items(dc.doc.Text))
		}
		title := fmt.Sprintf("%d items for %s", items, sr.Stage.Name)
		if items == 1 {
			title = fmt.Sprintf("1 item for %s", sr.Stage.Name)
		}
		arg := map[string]any{"workspace": a.Workspace().Root, "stage": sr.Stage.Name}
		if items > 0 {
			arg["item"] = 1 // the probe shows the first item's context
		}
		out = append(out, protocol.CodeLens{Range: protocol.Range{}, Command: &protocol.Command{Title: title, Command: cmdProbe, Arguments: []any{arg}}})
	}
	return out
}
