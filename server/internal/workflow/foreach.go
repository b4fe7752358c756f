package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// itemRecord is one finished For each item, kept in
// <stage>/.icm/items/NNN.json until the stage completes, so a run that
// dies mid-loop resumes at the first unfinished item.
type itemRecord struct {
	// Key binds the result to everything that shaped it: the stage's
	// inputs, the model settings, and the item itself.
	Key    string `json:"key"`
	Title  string `json:"title"`
	Output string `json:"output"`
	// Sources is the item's provenance, so a resumed run can still tell
	// which URLs its tool calls returned.
	Sources *state.SourceURLs `json:"sources,omitempty"`
}

// forEach runs one agent loop per ## section of the For each source, with
// up to [workflow] parallel at once, and joins the answers in order.
func (r *run) forEach(ctx context.Context, rep *check.Report, sess Toolset, cfg agent.Config) (string, error) {
	e, st := r.e, r.st
	items, rel, err := assemble.Items(e.ws, st, r.c)
	if err != nil {
		return "", err
	}
	if len(items) == 0 {
		return "", fault.Failed(fmt.Sprintf("stage %s: %s has no `##` sections, so there is no %s to run", st.Name, rel, r.c.ForEach.Item),
			"give the file one `##` section per item (run the stage that writes it again), or take For each out of the contract", nil).In(st.Name)
	}
	r.res.Items = len(items)
	base := r.settings.Hash()
	for _, k := range sortedKeys(r.inputs) {
		base += k + r.inputs[k]
	}
	dir := filepath.Join(st.Dir, state.StateDir, state.ItemsDir)
	outs := make([]string, len(items))
	parallel := max(1, e.ws.Config.Workflow.Parallel)
	sem := make(chan struct{}, parallel)
	// The first item to run goes alone until the server has read its
	// prompt: the items share most of it, and a server that has it
	// cached computes only what each item adds (docs/prefill.md).
	warm := parallel > 1 && e.ws.Config.Workflow.Warm()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for i := range items {
		it := items[i]
		key := state.Hash([]byte(fmt.Sprintf("%s\x00%d\x00%s\x00%s", base, i, it.Title, it.Body)))
		file := filepath.Join(dir, fmt.Sprintf("%03d.json", i+1))
		if done, ok := readItem(e.ws.Disk, file, key); ok {
			outs[i] = done.Output
			if p := verify.ProvenanceOf(done.Sources); p != nil {
				r.prov.Merge(p)
			}
			r.res.Reused++
			r.emitItem(report.Event{Kind: report.EventItemEnd, Stage: st.Name, Item: it.Title, Index: i + 1, Count: len(items),
				Message: fmt.Sprintf("[%d/%d] %s (kept from an interrupted run)", i+1, len(items), it.Title)}, true)
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		var read func()
		var warmed chan struct{}
		if warm {
			warm = false
			warmed = make(chan struct{})
			read = sync.OnceFunc(func() { close(warmed) })
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out, prov, err := r.item(ctx, rep, sess, cfg, items, i, nil, read)
			if err == nil {
				err = writeItem(e.ws.Disk, file, itemRecord{Key: key, Title: it.Title, Output: out, Sources: prov.Record()})
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				cancel()
				return
			}
			outs[i] = out
		}()
		if warmed != nil {
			select {
			case <-warmed:
			case <-ctx.Done():
			}
		}
	}
	wg.Wait()
	if firstErr != nil {
		return "", firstErr
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	r.written.Items = make([]WrittenItem, len(items))
	for i, o := range outs {
		r.written.Items[i] = WrittenItem{Index: i + 1, Title: items[i].Title, Text: strings.TrimSpace(o)}
	}
	return joinItems(r.written.Items), nil
}

// item runs item i (0-based) of items; fb, when set, is a person's
// feedback on the item's previous answer, added to the user part; read,
// when set, is called once the server has read the item's first prompt.
func (r *run) item(ctx context.Context, rep *check.Report, sess Toolset, cfg agent.Config, items []markdown.Item, i int, fb *feedback, read func()) (string, *verify.Provenance, error) {
	if read != nil {
		// Whatever happens before the model is called (the context cannot
		// be assembled), the items waiting on this one go on.
		defer read()
	}
	it := items[i]
	e, st := r.e, r.st
	n := len(items)
	r.emitItem(report.Event{Kind: report.EventItemStart, Stage: st.Name, Item: it.Title, Index: i + 1, Count: n,
		Message: fmt.Sprintf("[%d/%d] %s", i+1, n, it.Title)}, false)
	opts := assemble.Options{ProducedBy: rep.ProducedBy, Order: rep.Order, NoReadTool: !r.tools}
	assemble.WithItem(&opts, items, i+1)
	actx, err := assemble.Stage(e.ws, st, r.c, opts)
	if err != nil {
		return "", nil, err
	}
	fb.addTo(actx)
	cfg.Stage = fmt.Sprintf("%s [%d/%d]", st.Name, i+1, n)
	res, prov, err := r.loop(ctx, sess, cfg, actx, itemAt{title: it.Title, index: i + 1, count: n, read: read})
	if err != nil {
		return "", nil, err
	}
	r.emitItem(report.Event{Kind: report.EventItemEnd, Stage: st.Name, Item: it.Title, Index: i + 1, Count: n}, true)
	return res.Output, prov, nil
}

func readItem(root *workspace.Root, file, key string) (itemRecord, bool) {
	var rec itemRecord
	data, err := root.ReadFile(file)
	if err != nil {
		return rec, false
	}
	if json.Unmarshal(data, &rec) != nil || rec.Key != key {
		return itemRecord{}, false
	}
	return rec, true
}

func writeItem(root *workspace.Root, file string, rec itemRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := root.WriteCheckpoint(file, data, 0o644); err != nil {
		return errors.Join(errors.New("unable to save a finished item"), err)
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
