package lsp

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// registerWatchers asks the client to report changes to every file, so
// contracts are checked again when an input or an upstream output changes
// on disk. It calls the client, so it runs on a goroutine.
func (s *Server) registerWatchers(ctx context.Context) {
	if !s.clientSupports(func(c protocol.ClientCapabilities) bool {
		w := c.Workspace
		return w != nil && w.DidChangeWatchedFiles != nil && w.DidChangeWatchedFiles.DynamicRegistration != nil && *w.DidChangeWatchedFiles.DynamicRegistration
	}) {
		s.log.Info("the client cannot watch files for the server; changes on disk are seen when a document changes")
		return
	}
	params := protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:              "icm-watch",
		Method:          protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*"}}},
	}}}
	if err := s.call(ctx, "client/registerCapability", params, nil); err != nil {
		s.log.Warn("the client refused to watch files", "err", err)
	}
}

// didChangeWatchedFiles re-checks the workspaces whose files changed on
// disk; a stage folder, a contract, config.toml or an MCP configuration
// file appearing or going also makes the workspace be read again.
func (s *Server) didChangeWatchedFiles(_ *glsp.Context, p *protocol.DidChangeWatchedFilesParams) error {
	touched := map[*snapshot.Workspace]bool{}
	for _, ev := range p.Changes {
		path, err := pathOf(ev.URI)
		if err != nil {
			continue
		}
		st := s.set.ForPath(path)
		if st == nil || ignoredChange(st.Root(), path) {
			continue
		}
		reopen := ev.Type != protocol.FileChangeTypeChanged || isContract(path) || session.IsServerConfig(path)
		touched[st] = touched[st] || reopen
	}
	for st, reopen := range touched {
		st.Touch(reopen)
		s.statusMayHaveChanged(st)
	}
	return nil
}

// ignoredChange filters out the server's own writes (probes) and run
// traces, which change nothing a contract reads.
func ignoredChange(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return true
	}
	rel = filepath.ToSlash(rel)
	return strings.HasPrefix(rel, state.StateDir+"/probe/") || strings.HasPrefix(rel, workspace.HistoryDir+"/") || strings.HasPrefix(rel, ".git/")
}
