package workflow

import (
	"context"
	"fmt"
	"slices"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/readtool"
	"github.com/icm-tool/icm/server/internal/state"
)

// readingTools offers icm's read tools after the stage's own (and the
// write tool): the model reads the files its contract names, and each
// file it reads is kept in the run's record, so that a change to it
// makes the stage stale. A call of any other tool goes to the tools
// inside.
type readingTools struct {
	inner  agent.Tools
	defs   []llm.Tool
	reader *readtool.Reader
	read   func(*readtool.File)
}

func (t *readingTools) Tools() []llm.Tool {
	var out []llm.Tool
	if t.inner != nil {
		out = append(out, t.inner.Tools()...)
	}
	return append(out, t.defs...)
}

func (t *readingTools) Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	if !slices.ContainsFunc(t.defs, func(d llm.Tool) bool { return d.Name == name }) {
		if t.inner == nil {
			return agent.ToolResult{Text: fmt.Sprintf("unknown tool %q: the tools here are %s", name, toolNames(t.defs)), IsError: true}, nil
		}
		return t.inner.Call(ctx, name, args)
	}
	var text string
	var err error
	switch name {
	case readtool.ReadName:
		p, _ := args["path"].(string)
		var f *readtool.File
		if f, err = t.reader.Read(p); err == nil {
			t.read(f)
			text = f.Text
		}
	default:
		p, _ := args["folder"].(string)
		text, err = t.reader.List(p)
	}
	if err != nil {
		return agent.ToolResult{Text: err.Error(), IsError: true, Server: "icm", Tool: name}, nil
	}
	return agent.ToolResult{Text: text, Server: "icm", Tool: name}, nil
}

func toolNames(ts []llm.Tool) string {
	names := ""
	for i, t := range ts {
		if i > 0 {
			names += ", "
		}
		names += t.Name
	}
	return names
}

// readerTools lays the read tools of the context actx over tools.
func (r *run) readerTools(tools agent.Tools, actx *assemble.Context) agent.Tools {
	var defs []llm.Tool
	for _, d := range readtool.Definitions(actx) {
		defs = append(defs, llm.Tool(d))
	}
	return &readingTools{inner: tools, defs: defs,
		reader: readtool.NewReader(r.e.ws, r.st, actx.Readable, r.e.opts.ReadWorkspace), read: r.noteRead}
}

// noteRead keeps a file the model read, with its hash as read, for the
// record. The stage's own outputs are left out: what it writes changing
// is its own doing.
func (r *run) noteRead(f *readtool.File) {
	if assemble.OwnOutput(r.st, f.Rel) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reads == nil {
		r.reads = map[string]string{}
	}
	r.reads[f.Rel] = state.ContentHash(f.Data)
}

// callsTools reports whether the model can call tools: unless its server
// lists the model's capabilities without "tools" (a model that calls no
// tools gets everything icm loaded, and no tool).
func (r *run) callsTools(ctx context.Context, model string) bool {
	info, err := r.client.Show(ctx, model)
	return err != nil || info == nil || len(info.Capabilities) == 0 || slices.Contains(info.Capabilities, "tools")
}
