package assemble

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/textnorm"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Items reads a For each stage's source and returns its items: the `##`
// sections of the file the contract names.
func Items(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract) ([]markdown.Item, string, error) {
	if c.ForEach == nil {
		return nil, "", fault.InvalidRequest(fmt.Sprintf("stage %s has no For each section", st.Name), "name no item: the stage runs as one").In(st.Name)
	}
	abs, err := ws.Resolve(st.Dir, c.ForEach.Path)
	if err != nil {
		return nil, "", err
	}
	src, err := ws.Files.ReadFile(abs)
	if err != nil {
		return nil, ws.Rel(abs), fmt.Errorf("stage %s: unable to read the For each source %s: %w", st.Name, ws.Rel(abs), err)
	}
	doc := markdown.Parse(textnorm.Text(src))
	if doc.Err != nil {
		return nil, ws.Rel(abs), fmt.Errorf("stage %s: the For each source %s: %w", st.Name, ws.Rel(abs), doc.Err)
	}
	return doc.Items(), ws.Rel(abs), nil
}

// WithItem sets opts to assemble item n (1-based) of items, with the
// other items' titles as siblings.
func WithItem(opts *Options, items []markdown.Item, n int) {
	siblings := make([]string, 0, len(items)-1)
	for i, it := range items {
		if i != n-1 {
			siblings = append(siblings, it.Title)
		}
	}
	opts.Item, opts.ItemIndex, opts.ItemCount, opts.Siblings = &items[n-1], n, len(items), siblings
}

// SelectItem prepares opts for item n of a For each stage, as the probe
// and the editor's preview show it.
func SelectItem(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, n int, opts *Options) error {
	if c.ForEach == nil {
		return fault.InvalidRequest(fmt.Sprintf("stage %s has no For each section; an item applies to For each stages", st.Name),
			"name no item: the stage runs as one").In(st.Name)
	}
	items, rel, err := Items(ws, st, c)
	if err != nil {
		return err
	}
	if n < 1 || n > len(items) {
		return fault.InvalidRequest(fmt.Sprintf("%s has %d items; pick one from 1 to %d", rel, len(items), len(items)),
			fmt.Sprintf("the stage has %d items", len(items))).In(st.Name)
	}
	WithItem(opts, items, n)
	return nil
}
