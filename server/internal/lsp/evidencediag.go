package lsp

import (
	"fmt"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/session"
)

// evidenceSource is the source of the evidence's diagnostics.
const evidenceSource = "icm evidence"

// evidenceDiagnostics publishes, in the background, the diagnostics of a
// stage's output just opened or saved: one at information level for each
// unit no source supports and each mark (docs/evidence.md). They inform
// the person and block nothing; a file that is no output gets none.
func (e *env) evidenceDiagnostics(uri string) {
	e.bg.Go(func() {
		f, err := e.file(uri)
		if err != nil || f == nil {
			return
		}
		defer f.Release()
		files := map[string]fileDiagnostics{}
		if res := f.Evidence(e.ctx); res != nil {
			v := f.Doc.Version
			files[f.Doc.URI] = fileDiagnostics{URI: f.Doc.URI, Version: &v, Diagnostics: evidenceDiags(f.Doc.Mapper(), res)}
		}
		// No evidence (not an output, unsaved changes): the batch is
		// empty, which clears only what this owner sent before, never a
		// contract's own diagnostics.
		e.pub.publish(e.ctx, batch{owner: "evidence " + uri, files: files})
	})
}

// evidenceDiags are a result's unsupported units and marks as diagnostics.
func evidenceDiags(m *document.Mapper, res *evidence.Result) []protocol.Diagnostic {
	info := protocol.DiagnosticSeverityInformation
	source := evidenceSource
	var out []protocol.Diagnostic
	add := func(r evidence.Range, code, msg string) {
		out = append(out, protocol.Diagnostic{Range: toRange(m, document.Range{Start: r.Start, End: r.End}), Severity: &info,
			Code: &protocol.IntegerOrString{Value: code}, Source: &source, Message: msg})
	}
	for _, u := range res.Units {
		if u.Status == evidence.Unsupported {
			add(u.Range, string(evidence.Unsupported), fmt.Sprintf("unsupported (%.2f, below %.3g): no passage of the stage's inputs or of what its tools returned holds enough of it", u.Score, res.Threshold))
		}
		for _, mk := range u.Marks {
			add(mk.Range, string(mk.Kind), session.MarkWords(mk.Kind)+": "+mk.Message)
		}
	}
	return out
}
