package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"

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

// completionKinds are the protocol's kinds of the snapshot's completions.
var completionKinds = map[snapshot.ItemKind]protocol.CompletionItemKind{
	snapshot.KindText:     protocol.CompletionItemKindText,
	snapshot.KindKeyword:  protocol.CompletionItemKindKeyword,
	snapshot.KindModule:   protocol.CompletionItemKindModule,
	snapshot.KindFunction: protocol.CompletionItemKindFunction,
	snapshot.KindFile:     protocol.CompletionItemKindFile,
	snapshot.KindProperty: protocol.CompletionItemKindProperty,
	snapshot.KindValue:    protocol.CompletionItemKindValue,
}

// completionItems converts the snapshot's completions, their ranges
// through the buffer's mapper (nil stays nil: nothing to offer).
func completionItems(m *document.Mapper, in []snapshot.Item) []protocol.CompletionItem {
	if in == nil {
		return nil
	}
	snippet := protocol.InsertTextFormatSnippet
	out := make([]protocol.CompletionItem, 0, len(in))
	for _, it := range in {
		kind := completionKinds[it.Kind]
		ci := protocol.CompletionItem{Label: it.Label, Kind: &kind, TextEdit: protocol.TextEdit{Range: toRange(m, it.Range), NewText: it.Insert}}
		if it.Detail != "" {
			ci.Detail = &it.Detail
		}
		if it.Doc != "" {
			ci.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: it.Doc}
		}
		if it.Filter != "" {
			ci.FilterText = &it.Filter
		}
		if it.Snippet {
			ci.InsertTextFormat = &snippet
		}
		out = append(out, ci)
	}
	return out
}

// location converts a place in a file (its start when the snapshot
// gave no mapper).
func location(l snapshot.Location) protocol.Location {
	out := protocol.Location{URI: uriOf(l.Path)}
	if l.Mapper != nil {
		out.Range = toRange(l.Mapper, l.Range)
	}
	return out
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
