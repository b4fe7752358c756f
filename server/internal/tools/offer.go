package tools

import (
	"errors"
	"fmt"
	"sort"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
)

// Offered returns the tool definitions a stage's toolset offers the
// model, from its servers' listings (server name to the tools it
// lists) and the stage's allow list, the same way Open does: the
// allowed tools of each server in server-name order, exposed names made
// unique, sorted by exposed name. It lets a count before the run (the
// editor's, `icm probe`'s) see the definitions the run will send without
// starting a toolset. A server missing from listings is skipped; a
// listing without a tool the stage names is an error naming it, and the
// other servers' tools are still returned.
func Offered(listings map[string][]report.ToolInfo, allow map[string][]string) ([]llm.Tool, error) {
	names := make([]string, 0, len(allow))
	for name := range allow {
		if _, ok := listings[name]; ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var out []llm.Tool
	var errs []error
	taken := map[string]bool{}
	for _, name := range names {
		picked, err := pick(name, "", listings[name], allow[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, t := range expose(picked, taken) {
			out = append(out, definition(t))
		}
	}
	sortTools(out)
	return out, errors.Join(errs...)
}

// pick selects the tools allowed names (nil or ["*"]: all) from a
// server's listing, in the order named.
func pick(server, location string, offered []report.ToolInfo, allowed []string) ([]report.ToolInfo, error) {
	if len(allowed) == 0 || (len(allowed) == 1 && allowed[0] == "*") {
		return offered, nil
	}
	byServerName := map[string]report.ToolInfo{}
	for _, t := range offered {
		byServerName[t.Name] = t
	}
	var picked []report.ToolInfo
	var missing []string
	seen := map[string]bool{}
	for _, name := range allowed {
		if seen[name] {
			continue // named twice in the contract
		}
		seen[name] = true
		t, ok := byServerName[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		picked = append(picked, t)
	}
	if len(missing) > 0 {
		have := make([]string, 0, len(offered))
		for _, t := range offered {
			have = append(have, t.Name)
		}
		sort.Strings(have)
		from := ""
		if location != "" {
			from = " (from " + location + ")"
		}
		return nil, fmt.Errorf("MCP server %q%s has no tool %s, which the stage's ## Tools names; it offers: %s",
			server, from, quoteList(missing), listOrNone(have))
	}
	return picked, nil
}

// expose gives each picked tool an exposed name no earlier tool has.
func expose(picked []report.ToolInfo, taken map[string]bool) []report.ToolInfo {
	out := make([]report.ToolInfo, 0, len(picked))
	for _, t := range picked {
		t.Exposed = uniqueName(t.Exposed, taken)
		taken[t.Exposed] = true
		out = append(out, t)
	}
	return out
}

// definition is the function the model is offered for a tool.
func definition(t report.ToolInfo) llm.Tool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return llm.Tool{Name: t.Exposed, Description: desc, Parameters: t.InputSchema}
}

func sortTools(ts []llm.Tool) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
}
