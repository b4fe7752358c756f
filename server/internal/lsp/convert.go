package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// pathOf turns a file URI into a clean absolute path, with symlinks resolved
// as far as the path exists, so it matches the paths the workspace package
// produces (its root has symlinks resolved).
func pathOf(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fault.InvalidRequest(fmt.Sprintf("unable to read the document URI %q: %v", uri, err), "send a file: URI with an absolute path").Because(err)
	}
	if u.Scheme != "file" {
		return "", fault.InvalidRequest(fmt.Sprintf("unsupported document URI %q: icm reads only file: URIs", uri), "send a file: URI with an absolute path")
	}
	p := u.Path
	if p == "" || !filepath.IsAbs(p) {
		return "", fault.InvalidRequest(fmt.Sprintf("document URI %q has no absolute path", uri), "send a file: URI with an absolute path")
	}
	return snapshot.Canonical(filepath.Clean(p)), nil
}

// uriOf turns an absolute path into a file URI.
func uriOf(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// toPosition converts a mapper position to the protocol's.
func toPosition(p document.Position) protocol.Position {
	return protocol.Position{Line: protocol.UInteger(p.Line), Character: protocol.UInteger(p.Character)}
}

// fromPosition converts a protocol position to the mapper's.
func fromPosition(p protocol.Position) document.Position {
	return document.Position{Line: int(p.Line), Character: int(p.Character)}
}

// toRange converts a byte range to a protocol range. A range the mapper
// refuses (the text changed under it) collapses to the file's start rather
// than failing the whole response.
func toRange(m *document.Mapper, r document.Range) protocol.Range {
	start, err := m.Position(r.Start)
	if err != nil {
		return protocol.Range{}
	}
	end, err := m.Position(r.End)
	if err != nil {
		end = start
	}
	return protocol.Range{Start: toPosition(start), End: toPosition(end)}
}

// toDiagnostic converts a check finding to a protocol diagnostic.
func toDiagnostic(m *document.Mapper, f contract.Finding) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverity(f.Severity)
	source := "icm"
	d := protocol.Diagnostic{
		Range:    toRange(m, f.Range),
		Severity: &sev,
		Code:     &protocol.IntegerOrString{Value: f.Code},
		Source:   &source,
		Message:  f.Message,
	}
	if len(f.Data) > 0 {
		d.Data = f.Data
	}
	return d
}

// offsetOf is the byte offset of an LSP position in the text m maps; a
// position outside the text is an invalid request.
func offsetOf(m *document.Mapper, p protocol.Position) (int, error) {
	off, err := m.Offset(fromPosition(p))
	if err != nil {
		return 0, fault.InvalidRequest(fmt.Sprintf("position %d:%d: %v", p.Line, p.Character, err), "send a position inside the document as the server has it").Because(err)
	}
	return off, nil
}

// lineText returns the text of the 0-based line holding position p, and the
// byte offset p has in the document.
func lineText(d *document.Doc, p protocol.Position) (line string, lineStart, off int, err error) {
	m := d.Mapper()
	off, err = offsetOf(m, p)
	if err != nil {
		return "", 0, 0, err
	}
	r, err := m.LineRange(int(p.Line))
	if err != nil {
		return "", 0, 0, err
	}
	return string(d.Text[r.Start:r.End]), r.Start, off, nil
}

// isContract reports whether a path names a CONTEXT.md file.
func isContract(path string) bool {
	return strings.EqualFold(filepath.Base(path), "CONTEXT.md")
}
