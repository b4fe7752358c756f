package lsp

import (
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/state"
)

// codeLenses puts Run, Approve, the token count and the state on a
// contract's title, and on a file that a later stage loops over, how many
// items that stage will run (so a person trimming an outline sees the
// effect before drafting).
func (s *Server) codeLenses(gctx *glsp.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	ctx := s.ctxOf(gctx)
	dc, ok, err := s.contextOf(p.TextDocument.URI)
	if err != nil || !ok {
		return nil, err
	}
	a, err := dc.st.current(ctx)
	if err != nil {
		return nil, err
	}
	if dc.c == nil {
		return forEachSourceLenses(dc, a), nil
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
	out := []protocol.CodeLens{lens("▶ Run stage", cmdRunStage)}
	if sr := a.stageOfContract(dc.doc.Path); sr != nil {
		if l, ok := testLens(sr, line, arg); ok {
			out = append(out, l)
		}
	}
	status, reason := stageState(dc, s)
	if running := s.runs.running(dc.ws.Root); running != nil && running.Stage == dc.stage.Name {
		status, reason = statusRunning, "a run is working on it"
	}
	if status == string(state.Awaiting) {
		out = append(out, lens("✓ Approve", cmdApprove))
	}
	if sr := a.stageOfContract(dc.doc.Path); sr != nil && sr.Context != nil {
		out = append(out, lens(fmt.Sprintf("~%d tokens", sr.Context.Total), cmdProbe))
	}
	out = append(out, lens(stateTitle(status, reason), cmdStatus))
	return out, nil
}

// stateTitle is the state lens: the state in words, and the reason when it
// says more than the state does ("stale: changed since the last run: ...").
func stateTitle(status, reason string) string {
	title := strings.ReplaceAll(status, "-", " ")
	switch reason {
	case "", "approved", "output approved", "output awaiting review", status:
		return title
	}
	return title + ": " + reason
}

// stageState derives one stage's state from disk, as `icm status` does.
func stageState(dc *docContext, s *Server) (string, string) {
	ws, err := dc.st.workspace()
	if err != nil {
		return "unknown", err.Error()
	}
	src, err := ws.Files.ReadFile(dc.stage.Contract)
	if err != nil {
		return string(state.Pending), "the contract is not saved yet"
	}
	c := parseContract(dc.stage.Contract, src)
	set := state.ResolveSettings(ws.Config.Model, c.Model, s.currentSettings().Model)
	ss, err := state.Derive(ws, dc.stage, c, set)
	if err != nil {
		return "unknown", err.Error()
	}
	return string(ss.Status), ss.Reason
}

// forEachSourceLenses finds the stages that loop over this file.
func forEachSourceLenses(dc *docContext, a *analysis) []protocol.CodeLens {
	var out []protocol.CodeLens
	items := -1
	for _, sr := range a.report.Stages {
		if sr.Contract == nil || sr.Contract.ForEach == nil {
			continue
		}
		abs, err := a.ws.Resolve(sr.Stage.Dir, sr.Contract.ForEach.Path)
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
		arg := map[string]any{"workspace": a.ws.Root, "stage": sr.Stage.Name}
		if items > 0 {
			arg["item"] = 1 // the probe shows the first item's context
		}
		out = append(out, protocol.CodeLens{Range: protocol.Range{}, Command: &protocol.Command{Title: title, Command: cmdProbe, Arguments: []any{arg}}})
	}
	return out
}
