package snapshot

import (
	"context"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/document"
)

// The answers in a workspace's config.toml.

// configHover documents the key under the cursor (or a table header).
func (f *File) configHover(pos document.Position) *Hover {
	off, err := offset(f.Doc.Mapper(), pos)
	if err != nil {
		return nil
	}
	e, ok, _ := config.EntryAt(f.Doc.Text, off)
	if !ok {
		return nil
	}
	var text string
	if e.Header {
		table := e.Table
		if strings.HasPrefix(table, "mcp.servers.") {
			table = "mcp.servers.*"
		}
		doc, known := config.Tables[table]
		if !known {
			return nil
		}
		text = fmt.Sprintf("**[%s]**\n\n%s", e.Table, doc)
	} else {
		k, known := config.Lookup(e.Path)
		if !known {
			return nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "**%s** · %s%s\n\n%s", e.Path, k.Type, defaultNote(k), k.Doc)
		if len(k.Values) > 0 {
			fmt.Fprintf(&b, "\n\nOne of: `%s`", strings.Join(k.Values, "`, `"))
		}
		if e.Path == "model.name" {
			if names, ok := f.w.set.installedModels(f.w, f.o.sess); ok {
				if len(names) == 0 {
					b.WriteString("\n\nThe model server has no models yet.")
				} else {
					fmt.Fprintf(&b, "\n\nInstalled on the model server: `%s`", strings.Join(names, "`, `"))
				}
			}
		}
		text = b.String()
	}
	return &Hover{Markdown: text, Range: &document.Range{Start: e.Key.Start, End: e.Key.End}}
}

func defaultNote(k config.Key) string {
	if k.Default == "" {
		return ""
	}
	return ", default " + k.Default
}

// configCompletion offers, in config.toml: the keys of the table the
// cursor is in (with their docs), table names on a header line, and
// values: the allowed ones of an enumerated key, true/false, and for
// [model] name the models the server has (waiting within ctx for the
// server's first answer).
func (f *File) configCompletion(ctx context.Context, pos document.Position) (*Completion, error) {
	line, lineStart, off, err := lineText(f.Doc, pos)
	if err != nil {
		return nil, err
	}
	prefix := line[:off-lineStart]
	replace := func(from int) document.Range {
		return document.Range{Start: lineStart + from, End: off}
	}
	trim := strings.TrimLeft(prefix, " \t")
	lead := len(prefix) - len(trim)
	if strings.HasPrefix(trim, "[") {
		return items(tableItems(replace(lead))), nil
	}
	e, onLine, table := config.EntryAt(f.Doc.Text, off)
	if onLine && !e.Header && off >= e.Value.Start {
		return items(f.valueItems(ctx, e, replace(e.Value.Start-lineStart))), nil
	}
	if strings.Contains(trim, "=") {
		return nil, nil
	}
	out := []Item{}
	for _, k := range config.KeysOf(table) {
		insert := k.Name + " = "
		if k.Type == "string" || k.Type == "duration" {
			insert += `"`
		}
		out = append(out, Item{Label: k.Name, Kind: KindProperty, Detail: k.Type + defaultNote(k), Doc: k.Doc, Insert: insert, Range: replace(lead)})
	}
	return items(out), nil
}

// tableItems are the tables config.toml may have.
func tableItems(rng document.Range) []Item {
	var out []Item
	for _, t := range []string{"model", "workflow", "[model.servers]", "mcp.servers.NAME"} {
		name := strings.Trim(t, "[]")
		doc := config.Tables[strings.Replace(name, "NAME", "*", 1)]
		label := "[" + t + "]"
		out = append(out, Item{Label: label, Kind: KindModule, Doc: doc, Insert: label, Range: rng})
	}
	return out
}

// valueItems completes a key's value.
func (f *File) valueItems(ctx context.Context, e config.Entry, rng document.Range) []Item {
	k, ok := config.Lookup(e.Path)
	if !ok {
		return nil
	}
	var values []string
	detail := ""
	switch {
	case e.Path == "model.name":
		values = f.w.set.awaitModels(ctx, f.w, f.o.sess)
		detail = "installed on the model server"
	case len(k.Values) > 0:
		values = k.Values
	case k.Type == "boolean":
		return []Item{
			{Label: "true", Kind: KindValue, Insert: "true", Range: rng},
			{Label: "false", Kind: KindValue, Insert: "false", Range: rng},
		}
	}
	out := make([]Item, 0, len(values))
	for _, v := range values {
		quoted := `"` + v + `"`
		out = append(out, Item{Label: v, Kind: KindValue, Detail: detail, Filter: quoted, Insert: quoted, Range: rng})
	}
	return out
}
