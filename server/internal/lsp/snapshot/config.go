package snapshot

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/document"
)

// The answers in a workspace's config.toml.

// configHover documents the key under the cursor (or a table header).
func (f *File) configHover(pos document.Position) *Hover {
	off, err := Offset(f.Doc.Mapper(), pos)
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
			if names, ok := f.w.set.InstalledModels(f.w, f.o.sess); ok {
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
