package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// toolRegistry is the registry listings start servers from: icm's own
// servers get the environment a stage run with the session's model would.
func (s *Session) toolRegistry() tools.Registry {
	client, _ := s.modelClient()
	return s.box.With(workflow.ChildEnv(s.inherited(), client, s.Model()))
}

// List lists a server's tools, starting it once for the session's
// life and keeping the listing. Untrusted, nothing is started: icm's own
// servers are listed from their definitions, any other is refused.
func (tl Tools) List(ctx context.Context, server string) ([]report.ToolInfo, error) {
	s := tl.s
	s.mu.Lock()
	if infos, ok := s.listed[server]; ok {
		s.mu.Unlock()
		return infos, nil
	}
	if !s.trust.Allowed() {
		s.mu.Unlock()
		infos, err := tl.unstarted(ctx, server)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.listed[server] = infos
		s.mu.Unlock()
		return infos, nil
	}
	if s.catalog == nil {
		s.catalog = tools.NewCatalog(s.toolOptions(s.ws.Root))
	}
	c := s.catalog
	s.mu.Unlock()
	infos, err := c.ListTools(ctx, s.toolRegistry(), server)
	if err != nil {
		return nil, fault.From(err)
	}
	s.mu.Lock()
	s.listed[server] = infos
	s.mu.Unlock()
	return infos, nil
}

// Listing returns a server's tools when the session has listed it; it
// never starts one.
func (tl Tools) Listing(server string) ([]report.ToolInfo, bool) {
	s := tl.s
	s.mu.Lock()
	defer s.mu.Unlock()
	infos, ok := s.listed[server]
	return infos, ok
}

// names returns the tool names of every server listed so far.
func (tl Tools) names() map[string][]string {
	s := tl.s
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]string, len(s.listed))
	for server, infos := range s.listed {
		names := make([]string, 0, len(infos))
		for _, t := range infos {
			names = append(names, t.Name)
		}
		out[server] = names
	}
	return out
}

// KeepFrom takes over prev's started servers and listings when prev
// starts the same servers the same way, so reopening a workspace after an
// edit elsewhere does not start them again; prev's Close then leaves
// them. It reports whether it took them.
func (tl Tools) KeepFrom(prev *Session) bool {
	s := tl.s
	if prev == nil || prev == s || prev.trust.Allowed() != s.trust.Allowed() || !sameRegistry(prev.toolRegistry(), s.toolRegistry()) {
		return false
	}
	prev.mu.Lock()
	c, listed := prev.catalog, prev.listed
	prev.catalog, prev.listed = nil, map[string][]report.ToolInfo{}
	prev.mu.Unlock()
	if c != nil {
		// What it starts from now on asks this session's decision.
		c.SetPermit(s.permit())
	}
	s.mu.Lock()
	s.catalog, s.listed = c, listed
	s.mu.Unlock()
	return true
}

func sameRegistry(a, b tools.Registry) bool {
	if len(a) != len(b) {
		return false
	}
	for name, s := range a {
		if o, ok := b[name]; !ok || o.Key() != s.Key() {
			return false
		}
	}
	return true
}

// IsServerConfig reports whether a file may hold MCP server entries
// (.vscode/mcp.json, .mcp.json; config.toml is the workspace's config,
// which holds them too), so a change to it means reopening the workspace.
func IsServerConfig(path string) bool {
	return strings.HasSuffix(path, filepath.FromSlash(tools.VSCodeFile)) || filepath.Base(path) == tools.PortableFile ||
		filepath.Base(path) == config.FileName
}

// open starts the servers allow names (server -> tool names, nil
// for all of a server's tools) with the environment a stage running on
// the session's model gives them, for an icm subcommand that calls tools
// itself (icm research). Close the result.
func (tl Tools) open(ctx context.Context, allow map[string][]string) (workflow.Toolset, error) {
	s := tl.s
	if err := s.Trust().Require("start its tool servers"); err != nil {
		return nil, err
	}
	client, _ := s.modelClient()
	open := s.box.Opener(s.toolOptions(s.ws.Root))
	return faulted(open(ctx, workflow.ToolRequest{Allow: allow, Env: workflow.ChildEnv(s.inherited(), client, s.Model())}))
}

// opener is the engine's way of starting a stage's tools for a copy of
// the workspace rooted at root (a stage test's isolated copy: its servers
// run there, never in the real workspace).
func (tl Tools) opener(root string) workflow.ToolOpener {
	s := tl.s
	if !s.trust.Allowed() {
		return func(context.Context, workflow.ToolRequest) (workflow.Toolset, error) {
			return nil, s.refusal("start its tool servers")
		}
	}
	return s.box.Opener(s.toolOptions(root))
}

// toolOptions are the options tool servers of the workspace (or of a
// copy of it at root) start with: a run's engine gives its own permit
// (a stage test's, for its copy) with each request.
func (s *Session) toolOptions(root string) tools.Options {
	o := tools.DefaultOptions(root, s.ws.Config)
	o.Permit = s.permit()
	return o
}

// unstarted lists a server's tools without starting anything: icm's
// own servers from their definitions; any other is refused.
func (tl Tools) unstarted(ctx context.Context, server string) ([]report.ToolInfo, error) {
	s := tl.s
	infos, ok, err := s.box.OwnTools(ctx, server, s.toolOptions(s.ws.Root))
	if !ok {
		return nil, fault.Untrusted(fmt.Sprintf("tool server %q was not started to list its tools: the workspace is not trusted", server), s.ws.Root)
	}
	if err != nil {
		return nil, fault.From(err)
	}
	return infos, nil
}
