package promptcount

import (
	"context"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Stage is the count of a stage's first calls.
type Stage struct {
	Stage string `json:"stage"`
	Model string `json:"model,omitempty"`
	// First is the stage's first call (for a For each stage, the first
	// item's): everything the server will see.
	First tokens.Count `json:"first_call"`
	// Tools is how much of First the tool definitions take (with their
	// template text), 0 for a stage without tools.
	Tools int `json:"tool_tokens,omitempty"`
	// ToolDefs is how many tool definitions the call offers (icm's read
	// tools included).
	ToolDefs int `json:"tool_definitions,omitempty"`
	// ToolsLeftOut names the tool servers whose definitions the counts
	// do not include (they could not be listed), with why.
	ToolsLeftOut []string `json:"tools_left_out,omitempty"`
	// Items are each For each item's first call, in order.
	Items []Item `json:"items,omitempty"`
	// Total is the first calls of the whole stage: First, or the sum of
	// the items' for a For each stage. Tool results and later turns of a
	// tool loop come on top and cannot be known before the run.
	Total tokens.Count `json:"total"`
}

// Item is one For each item's first call.
type Item struct {
	Title string       `json:"title"`
	Count tokens.Count `json:"count"`
	// Shared is how many of its tokens an earlier item's first call
	// begins with too, which a server that kept that call's computed
	// start does not compute again; Own is the rest, the least the call
	// computes. Exact when Count is, else estimated in proportion to the
	// characters shared.
	Shared int `json:"shared_tokens"`
	Own    int `json:"own_tokens"`
}

// Stage counts a stage from its contract: opts are the assemble options
// the caller would run or preview with (AllowMissing for previews,
// ProducedBy); the item fields are set here for For each stages.
func (c *Counter) Stage(ctx context.Context, ws *workspace.Workspace, st *workspace.Stage, k *contract.Contract, opts assemble.Options, call Call) (*Stage, error) {
	out := &Stage{Stage: st.Name, Model: call.Model, ToolDefs: len(call.Tools), ToolsLeftOut: call.Unlisted}
	if k.ForEach == nil {
		cx, err := assemble.Stage(ws, st, k, opts)
		if err != nil {
			return nil, err
		}
		if out.First, out.Tools, err = c.first(ctx, cx, call); err != nil {
			return nil, err
		}
		out.ToolDefs = len(Request(cx, call).Tools)
		out.Total = out.First
		return out, nil
	}
	items, _, err := assemble.Items(ws, st, k)
	if err != nil && opts.AllowMissing {
		// A preview before the source exists: the stage without an item.
		k := *k
		k.ForEach = nil
		return c.Stage(ctx, ws, st, &k, opts, call)
	}
	if err != nil {
		return nil, err
	}
	reqs := make([]llm.ChatRequest, 0, len(items))
	for i := range items {
		o := opts
		assemble.WithItem(&o, items, i+1)
		cx, err := assemble.Stage(ws, st, k, o)
		if err != nil {
			return nil, err
		}
		n, toolTokens, err := c.first(ctx, cx, call)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out.First, out.Tools, out.ToolDefs = n, toolTokens, len(Request(cx, call).Tools)
		}
		out.Items = append(out.Items, Item{Title: items[i].Title, Count: n})
		out.Total = out.Total.Add(n)
		reqs = append(reqs, Request(cx, call))
	}
	c.share(ctx, reqs, out.Items)
	return out, nil
}

// first counts one first call, and the share of its tool definitions.
func (c *Counter) first(ctx context.Context, cx *assemble.Context, call Call) (tokens.Count, int, error) {
	req := Request(cx, call)
	n, err := c.Count(ctx, req)
	if err != nil || len(req.Tools) == 0 {
		return n, 0, err
	}
	req.Tools = nil
	without, err := c.Count(ctx, req)
	if err != nil {
		return n, 0, err
	}
	return n, n.Tokens - without.Tokens, nil
}
