package lsp

import (
	"context"
	"fmt"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// finishedReview fills a runFinished's review facts from the stage-end
// event: the rubric's line and the checklist the person reviews against.
func finishedReview(f *runFinished, ev session.Event) {
	f.Rubric = state.RubricLine(ev.Rubric)
	pass, of, _ := state.RubricCount(ev.Rubric)
	f.RubricFailed = pass < of
	f.ReviewGate = session.ReviewItems(ev.ReviewGate)
}

// outputFileHover is the hover on the first line of a stage's output
// file, where its lenses stand: the state in words, the rubric's checks
// and the contract's Review Gate, the checklist to review it against. nil
// elsewhere and for files that are no stage's output.
func (s *Server) outputFileHover(ctx context.Context, dc *docContext, pos protocol.Position) *protocol.Hover {
	if pos.Line != 0 {
		return nil
	}
	stg := dc.ws.StageOf(dc.doc.Path)
	if stg == nil || stg.Contract == dc.doc.Path {
		return nil
	}
	src, err := dc.ws.Files.ReadFile(stg.Contract)
	if err != nil {
		return nil
	}
	c := contract.Parse(stg.Contract, src)
	rel := dc.ws.Rel(dc.doc.Path)
	isOutput := false
	for _, o := range state.OutputPaths(dc.ws, stg, c) {
		isOutput = isOutput || o == rel
	}
	if !isOutput {
		return nil
	}
	row := dc.st.Row(ctx, stg.Name)
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
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: b.String()}}
}
