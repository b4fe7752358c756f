// Package toolbox connects the run engine to MCP tool servers: it loads a
// workspace's server registry, lets `command = "icm"` mean this very
// binary, and adapts tools.Toolset to the agent loop. The session starts
// every stage's tools through it (for runs, stage tests, listings and icm
// research), so the workflow and agent packages never import the MCP
// library.
package toolbox

import (
	"context"
	"os"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// SelfCommand is the server command that means "this icm binary", so a
// workspace can name icm's own MCP servers without knowing where icm lives.
const SelfCommand = "icm"

// Self says how to run icm's own servers.
type Self struct {
	// Path is the icm executable; "" means os.Executable.
	Path string
	// Env is added to the environment of icm's own servers where their
	// entry does not set the variable (the SearXNG URL, API key
	// variables). Stdio servers otherwise get a minimal environment.
	Env map[string]string
}

// Box is a workspace's MCP servers ready to start: entries with
// `command = "icm"` run this executable and get the stage's environment.
type Box struct {
	// Registry is every server, icm's own pointed at the executable and
	// given Self.Env.
	Registry tools.Registry
	// base is Self.Env; own holds the environment icm's own entries set
	// themselves, by name (it wins over everything).
	base map[string]string
	own  map[string]map[string]string
	// self names icm's own entries (`command = "icm"`), whatever the
	// executable.
	self map[string]bool
}

// LoadWith reads the workspace's MCP servers and points `icm` commands
// at this executable; the entries' ${env:NAME} variables are read through
// lookup, or the process's environment when nil. A session that may not
// read the variables a workspace names passes one that finds none.
func LoadWith(ws *workspace.Workspace, self Self, lookup func(string) (string, bool)) (*Box, []tools.Problem) {
	var reg tools.Registry
	var problems []tools.Problem
	if lookup == nil {
		reg, problems = tools.LoadServers(ws.Root, ws.Config)
	} else {
		home, _ := os.UserHomeDir()
		reg, problems = tools.Loader{LookupEnv: lookup, Home: home}.Load(ws.Root, ws.Config)
	}
	if self.Path == "" {
		if exe, err := os.Executable(); err == nil {
			self.Path = exe
		}
	}
	b := &Box{Registry: reg, base: self.Env, own: map[string]map[string]string{}, self: map[string]bool{}}
	for name, s := range reg {
		if s.Command == SelfCommand {
			b.self[name] = true
		}
		if s.Command != SelfCommand || self.Path == "" {
			continue
		}
		b.own[name] = s.Env
		s.Command = self.Path
		s.Env = withOwn(overlay(self.Env), s.Env)
		reg[name] = s
	}
	return b, problems
}

// withOwn sets an entry's own variables over env, empty ones included:
// the workspace's entry has the last word.
func withOwn(env, own map[string]string) map[string]string {
	for k, v := range own {
		env[k] = v
	}
	return env
}

// overlay returns the non-empty values of the maps, later ones winning.
func overlay(maps ...map[string]string) map[string]string {
	env := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			if v != "" {
				env[k] = v
			}
		}
	}
	return env
}

// With returns the registry with env laid over Self.Env for icm's own
// servers (what their entries set still wins): what a stage's tools are
// started with.
func (b *Box) With(env map[string]string) tools.Registry {
	if len(env) == 0 {
		return b.Registry
	}
	out := make(tools.Registry, len(b.Registry))
	for name, s := range b.Registry {
		if own, ok := b.own[name]; ok {
			s.Env = withOwn(overlay(b.base, env), own)
		}
		out[name] = s
	}
	return out
}

// SelfEnv is the environment icm passes on to its own servers, read
// through getenv: the model host and model, the SearXNG URL, the cache
// folder, and the API key variables the workspace's [model] section names
// (summarize and extract read the model through the same config).
func SelfEnv(getenv func(string) string, keyVars ...string) map[string]string {
	out := map[string]string{}
	for _, k := range append([]string{"OLLAMA_HOST", "ICM_MODEL", "SEARXNG_URL", "XDG_CACHE_HOME"}, keyVars...) {
		if v := getenv(k); v != "" {
			out[k] = v
		}
	}
	return out
}

// KeyVars lists the environment variables a [model] section reads API
// keys from.
func KeyVars(m config.Model) []string {
	var out []string
	if m.APIKeyEnv != "" {
		out = append(out, m.APIKeyEnv)
	}
	for _, s := range m.Servers {
		if s.APIKeyEnv != "" {
			out = append(out, s.APIKeyEnv)
		}
	}
	return out
}

// Names returns the server names.
func (b *Box) Names() map[string]bool {
	out := make(map[string]bool, len(b.Registry))
	for name := range b.Registry {
		out[name] = true
	}
	return out
}

// Opener returns the engine's way of starting a stage's tools: with the
// request's permit (the run's) when it has one, else opts'.
func (b *Box) Opener(opts tools.Options) workflow.ToolOpener {
	return func(ctx context.Context, req workflow.ToolRequest) (workflow.Toolset, error) {
		o := opts
		if req.Permit != nil {
			o.Permit = req.Permit
		}
		s, err := tools.Open(ctx, b.With(req.Env), req.Allow, o)
		if err != nil {
			return nil, err
		}
		return toolset{s}, nil
	}
}

// toolset adapts tools.Toolset to agent.Tools.
type toolset struct{ *tools.Toolset }

func (s toolset) Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	r, err := s.Toolset.Call(ctx, name, args)
	return agent.ToolResult{Text: r.Text, IsError: r.IsError, Server: r.Server, Tool: r.Tool, Size: r.Size, Truncated: r.Truncated, Duration: r.Duration}, err
}
