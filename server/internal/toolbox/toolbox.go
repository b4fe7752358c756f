// Package toolbox connects the run engine to MCP tool servers: it loads a
// workspace's server registry, lets `command = "icm"` mean this very
// binary, and adapts tools.Session to the agent loop. The CLI and the
// language server both start stage tools through it, so the workflow and
// agent packages never import the MCP library.
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
	// entry does not set the variable: the model host the run uses
	// (OLLAMA_HOST, for summarize and extract) and the SearXNG URL. Stdio
	// servers otherwise get a minimal environment.
	Env map[string]string
}

// Load reads the workspace's MCP servers and points `icm` commands at
// this executable.
func Load(ws *workspace.Workspace, self Self) (tools.Registry, []tools.Problem) {
	reg, problems := tools.LoadServers(ws.Root, ws.Config)
	if self.Path == "" {
		if exe, err := os.Executable(); err == nil {
			self.Path = exe
		}
	}
	for name, s := range reg {
		if s.Command != SelfCommand || self.Path == "" {
			continue
		}
		s.Command = self.Path
		env := map[string]string{}
		for k, v := range self.Env {
			if v != "" {
				env[k] = v
			}
		}
		for k, v := range s.Env {
			env[k] = v
		}
		s.Env = env
		reg[name] = s
	}
	return reg, problems
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

// Names returns the server names of a registry.
func Names(reg tools.Registry) map[string]bool {
	out := make(map[string]bool, len(reg))
	for name := range reg {
		out[name] = true
	}
	return out
}

// Opener returns the engine's way of starting a stage's tools.
func Opener(reg tools.Registry, opts tools.Options) workflow.ToolOpener {
	return func(ctx context.Context, allow map[string][]string) (workflow.ToolSession, error) {
		s, err := tools.Open(ctx, reg, allow, opts)
		if err != nil {
			return nil, err
		}
		return session{s}, nil
	}
}

// session adapts tools.Session to agent.Tools.
type session struct{ *tools.Session }

func (s session) Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	r, err := s.Session.Call(ctx, name, args)
	return agent.ToolResult{Text: r.Text, IsError: r.IsError, Server: r.Server, Tool: r.Tool, Size: r.Size, Truncated: r.Truncated, Duration: r.Duration}, err
}
