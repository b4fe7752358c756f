package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// isConfig reports whether dc is its workspace's config.toml.
func isConfig(dc *docContext) bool {
	return filepath.Base(dc.doc.Path) == config.FileName && filepath.Dir(dc.doc.Path) == dc.ws.Root
}

// configCompletion offers, in config.toml: the keys of the table the
// cursor is in (with their docs), table names on a header line, and
// values: the allowed ones of an enumerated key, true/false, and for
// [model] name the models the server has.
func (s *Server) configCompletion(ctx context.Context, dc *docContext, pos protocol.Position) (any, error) {
	line, lineStart, off, err := lineText(dc.doc, pos)
	if err != nil {
		return nil, err
	}
	prefix := line[:off-lineStart]
	m := dc.doc.Mapper()
	replace := func(from int) protocol.Range {
		return toRange(m, document.Range{Start: lineStart + from, End: off})
	}
	trim := strings.TrimLeft(prefix, " \t")
	lead := len(prefix) - len(trim)
	if strings.HasPrefix(trim, "[") {
		return tableItems(replace(lead)), nil
	}
	e, onLine, table := config.EntryAt(dc.doc.Text, off)
	if onLine && !e.Header && off >= e.Value.Start {
		return s.valueItems(ctx, dc, e, replace(e.Value.Start-lineStart)), nil
	}
	if strings.Contains(trim, "=") {
		return nil, nil
	}
	items := []protocol.CompletionItem{}
	kind := protocol.CompletionItemKindProperty
	for _, k := range config.KeysOf(table) {
		insert := k.Name + " = "
		if k.Type == "string" || k.Type == "duration" {
			insert += `"`
		}
		items = append(items, protocol.CompletionItem{
			Label: k.Name, Kind: &kind, Detail: ptr(k.Type + defaultNote(k)),
			Documentation: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: k.Doc},
			TextEdit:      protocol.TextEdit{Range: replace(lead), NewText: insert},
		})
	}
	return items, nil
}

func defaultNote(k config.Key) string {
	if k.Default == "" {
		return ""
	}
	return ", default " + k.Default
}

// tableItems are the tables config.toml may have.
func tableItems(rng protocol.Range) []protocol.CompletionItem {
	kind := protocol.CompletionItemKindModule
	var out []protocol.CompletionItem
	for _, t := range []string{"model", "workflow", "[model.servers]", "mcp.servers.NAME"} {
		name := strings.Trim(t, "[]")
		doc := config.Tables[strings.Replace(name, "NAME", "*", 1)]
		label := "[" + t + "]"
		out = append(out, protocol.CompletionItem{Label: label, Kind: &kind,
			Documentation: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc},
			TextEdit:      protocol.TextEdit{Range: rng, NewText: label}})
	}
	return out
}

// valueItems completes a key's value.
func (s *Server) valueItems(ctx context.Context, dc *docContext, e config.Entry, rng protocol.Range) []protocol.CompletionItem {
	k, ok := config.Lookup(e.Path)
	if !ok {
		return nil
	}
	kind := protocol.CompletionItemKindValue
	var values []string
	detail := ""
	switch {
	case e.Path == "model.name":
		if o, err := dc.st.Acquire(); err == nil {
			values = s.set.AwaitModels(ctx, dc.st, o.Session())
			o.Release()
		}
		detail = "installed on the model server"
	case len(k.Values) > 0:
		values = k.Values
	case k.Type == "boolean":
		return []protocol.CompletionItem{
			{Label: "true", Kind: &kind, TextEdit: protocol.TextEdit{Range: rng, NewText: "true"}},
			{Label: "false", Kind: &kind, TextEdit: protocol.TextEdit{Range: rng, NewText: "false"}},
		}
	}
	out := make([]protocol.CompletionItem, 0, len(values))
	for _, v := range values {
		quoted := `"` + v + `"`
		item := protocol.CompletionItem{Label: v, Kind: &kind, FilterText: &quoted, TextEdit: protocol.TextEdit{Range: rng, NewText: quoted}}
		if detail != "" {
			item.Detail = ptr(detail)
		}
		out = append(out, item)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// fileExists reports whether an analysis sees file (a buffer or on disk).
func fileExists(a *snapshot.Snapshot, file string) bool {
	_, err := a.Workspace().Files.Stat(file)
	return err == nil
}

// configActions offers, on a config.toml problem with a suggestion, the
// quick fix that writes it: the model the server has, the key meant, the
// allowed value meant.
func (s *Server) configActions(ctx context.Context, dc *docContext, p *protocol.CodeActionParams) (any, error) {
	found, err := s.findingsIn(ctx, dc, p.Range)
	if err != nil {
		return nil, err
	}
	m := dc.doc.Mapper()
	out := []protocol.CodeAction{}
	quickfix := protocol.CodeActionKindQuickFix
	for _, f := range found {
		sug := f.Data["suggest"]
		if sug == "" {
			continue
		}
		text, title := `"`+sug+`"`, fmt.Sprintf("Use %q", sug)
		if f.Code == config.ProblemUnknownKey {
			text, title = sug, fmt.Sprintf("Change the key to %s", sug)
		}
		yes := true
		out = append(out, protocol.CodeAction{Title: title, Kind: &quickfix, IsPreferred: &yes,
			Diagnostics: []protocol.Diagnostic{toDiagnostic(m, f)},
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
				dc.doc.URI: {{Range: toRange(m, f.Range), NewText: text}},
			}}})
	}
	return out, nil
}
