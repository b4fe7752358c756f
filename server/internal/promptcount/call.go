package promptcount

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// ToolLister lists one MCP server's tools: the language server's cached
// catalog, or `icm probe` starting the server under a deadline.
type ToolLister func(ctx context.Context, server string) ([]report.ToolInfo, error)

// CallOf is a stage's first call as its run will make it: the model and
// think setting the run resolves (the contract's model section over the
// workspace's [model], override for --model or the editor's setting),
// and the tool definitions its session will offer, listed through list.
// A server that cannot be listed is left out of the definitions and
// named in Call.Unlisted with the reason, so the count can say what it
// does not include; list nil lists nothing.
func CallOf(ctx context.Context, cfg config.Model, k *contract.Contract, override string, list ToolLister) Call {
	set := state.ResolveSettings(cfg, k.Model, override)
	call := Call{Model: set.Model(), Think: set.Think}
	allow := k.Tools.Allowed()
	if len(allow) == 0 {
		writeTool(&call, k)
		return call
	}
	servers := make([]string, 0, len(allow))
	for s := range allow {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	// Listed side by side: a server that is slow to start (or never
	// answers before the caller's deadline) does not hold up the others.
	type listing struct {
		infos []report.ToolInfo
		err   error
	}
	got := make([]listing, len(servers))
	if list != nil {
		var wg sync.WaitGroup
		for i, s := range servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i].infos, got[i].err = list(ctx, s)
			}()
		}
		wg.Wait()
	}
	listings := map[string][]report.ToolInfo{}
	for i, s := range servers {
		switch {
		case list == nil:
			call.Unlisted = append(call.Unlisted, s+": not listed")
		case got[i].err != nil:
			call.Unlisted = append(call.Unlisted, fmt.Sprintf("%s: %v", s, got[i].err))
		default:
			listings[s] = got[i].infos
		}
	}
	defs, err := tools.Offered(listings, allow)
	if err != nil {
		// The check reports a named tool the server lacks; the count
		// goes on with the tools that exist.
		call.Unlisted = append(call.Unlisted, err.Error())
	}
	call.Tools = defs
	writeTool(&call, k)
	return call
}

// writeTool adds the write tool a stage whose outputs the model names is
// offered, after its servers' tools, as the run offers it.
func writeTool(call *Call, k *contract.Contract) {
	if !writeout.Needed(k) {
		return
	}
	call.Tools = append(call.Tools, llm.Tool{Name: writeout.ToolName,
		Description: writeout.ToolDescription(writeout.Targets(k)), Parameters: writeout.ToolParameters})
}
