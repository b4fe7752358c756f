package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/usersettings"
	"github.com/icm-tool/icm/server/internal/workspace"
	"github.com/icm-tool/icm/server/internal/wsmcp"
)

// newMCPWorkspaceCmd is `icm mcp workspace`: the workspace MCP server a
// coding agent runs stages through.
func newMCPWorkspaceCmd(env *Env, g *globalFlags) *cobra.Command {
	var tf transportFlags
	var restricted bool
	var poll time.Duration
	cmd := &cobra.Command{
		Use:   "workspace [FOLDER...]",
		Short: "Let a coding agent run stages through icm (resources, prompts, tools)",
		Long: `Serve ICM workspaces to a coding agent over MCP: each FOLDER is a workspace,
or a folder holding several (default: the workspace around the current folder,
or -w). The agent reads a stage's exact context (resource icm://STAGE/context,
what icm probe --json prints, with its context_id; one prompt per stage), does
the work, and hands the outputs in with submit_outputs. icm checks them against
the declared outputs, records the run as agent:NAME, runs Verify and the rubrics
and stops at the review gate. Approving stays with the person: there is no
approve tool unless their own settings file says

  [agents]
  approve = true

(~/.config/icm/settings.toml; never a workspace's files), and an agent's
approval is shown apart. A workspace that is not trusted (icm trust) is served
read-only: its contexts can be read, nothing is run, handed in or approved;
--restricted serves every one read-only, as an editor in Restricted Mode asks.
With --http, every request must carry the token kept in your config folder
(mcp-token, made on first use); icm mcp install --http prints a client's
setup. See icm help agents.`,
		Example: "  icm mcp workspace\n  icm mcp workspace workspaces/course-research\n  icm mcp workspace workspaces",
		RunE: func(cmd *cobra.Command, args []string) error {
			how := serving{addr: tf.http, maxRequest: wsmcp.MaxRequest}
			if tf.http != "" {
				if err := loopbackAddr(tf.http); err != nil {
					return err
				}
				var err error
				if how.token, how.tokenFile, err = serverToken(env); err != nil {
					return err
				}
			}
			roots, err := servedRoots(env, g, args)
			if err != nil {
				return err
			}
			user, err := usersettings.Load(env.Getenv, roots...)
			if err != nil {
				return err
			}
			logger := newLogger(env)
			counting := session.NewCounting(env.Getenv)
			cwd, _ := env.Getwd()
			repo := repoRoot(env, g, cwd)
			srv := wsmcp.New(wsmcp.Deps{
				Roots: roots,
				Open: func(root string) (*session.Session, error) {
					ws, err := workspace.LoadWith(root, root, workspace.Options{Repository: repo})
					if err != nil {
						return nil, err
					}
					opts := sessionOptions(env, g, session.Settings{})
					opts.Counting, opts.Trust.Restricted = counting, restricted
					opts.Warn = func(msg string) { logger.Warn(msg) }
					return session.Open(ws, opts), nil
				},
				AllowApprove: user.Agents.Approve,
				SettingsPath: user.Path,
				Version:      Version,
				Poll:         poll,
				Warn:         func(msg string) { logger.Warn(msg) },
			})
			logger.Info("workspace server", "workspaces", strings.Join(roots, ", "), "agents may approve", user.Agents.Approve, "read-only", restricted)
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			go srv.Watch(ctx)
			return serveMCP(ctx, env, logger, srv.MCP(), how)
		},
	}
	tf.add(cmd)
	cmd.Flags().DurationVar(&poll, "poll", wsmcp.DefaultPoll, "how often subscribed resources are read again")
	_ = cmd.Flags().MarkHidden("poll")
	cmd.Flags().BoolVar(&restricted, "restricted", false, "serve the workspaces read-only, trusted or not and whatever they name: no runs, no outputs handed in, no approvals (what an editor in Restricted Mode asks)")
	return cmd
}

// servedRoots are the workspaces the server serves: for each folder, the
// workspace it is, else the workspaces in it, else the workspace around
// it.
func servedRoots(env *Env, g *globalFlags, args []string) ([]string, error) {
	if len(args) == 0 {
		ws, err := openWorkspace(env, g)
		if err != nil {
			return nil, err
		}
		return []string{ws.Root}, nil
	}
	cwd, err := env.Getwd()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var roots []string
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			roots = append(roots, r)
		}
	}
	for _, a := range args {
		dir := a
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		dir = filepath.Clean(dir)
		if workspace.IsRoot(dir) {
			add(dir)
			continue
		}
		// The workspaces in the folder before the one around it: a
		// repository's own CLAUDE.md or AGENTS.md above a folder of
		// workspaces marks no workspace the person meant.
		if found := workspace.Below(dir); len(found) > 0 {
			for _, r := range found {
				add(r)
			}
			continue
		}
		root, err := workspace.Find(dir)
		if err != nil {
			return nil, fault.NotFound(fmt.Sprintf("%s holds no ICM workspace (a folder with CLAUDE.md, or CONTEXT.md and its stages) within %d levels, and is in none", dir, workspace.DiscoverDepth),
				"name a workspace's folder, or a folder that holds workspaces")
		}
		add(root)
	}
	return roots, nil
}
