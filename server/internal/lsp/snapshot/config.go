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

// configCompletion offers in config.toml what config.Complete finds fits
// at the cursor: on a header line the tables not there yet, on a key line
// the keys of its table not set yet (each writing its ` = ` and a value
// to fill, quotes included), after `key =` the key's values (the allowed
// ones, true/false, or for a key naming a model the models the server
// has, waiting within ctx for the server's first answer).
func (f *File) configCompletion(ctx context.Context, pos document.Position) (*Completion, error) {
	off, err := offset(f.Doc.Mapper(), pos)
	if err != nil {
		return nil, err
	}
	// The models are waited for only where they are the answer: a
	// model key's value. Elsewhere they fill a key's choice when known.
	models, _ := f.w.set.installedModels(f.w, f.o.sess)
	if e, onLine, _ := config.EntryAt(f.Doc.Text, off); onLine && !e.Header && off >= e.Value.Start && config.ModelKeys[e.Path] {
		models = f.w.set.awaitModels(ctx, f.w, f.o.sess)
	}
	found := config.Complete(f.Doc.Text, off, models)
	if found == nil {
		return nil, nil
	}
	out := make([]Item, 0, len(found))
	for _, c := range found {
		out = append(out, Item{Label: c.Label, Kind: configKinds[c.Kind], Detail: c.Detail, Doc: c.Doc, Filter: c.Filter,
			Insert: c.Text, Snippet: c.Snippet, Range: document.Range{Start: c.Replace.Start, End: c.Replace.End}})
	}
	return items(out), nil
}

// configKinds are the completion kinds of config.Complete's kinds.
var configKinds = map[config.CompletionKind]ItemKind{
	config.CompleteKey:   KindProperty,
	config.CompleteTable: KindModule,
	config.CompleteValue: KindValue,
}
