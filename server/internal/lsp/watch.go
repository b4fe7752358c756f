package lsp

import (
	"context"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// registerWatchers asks the client to report changes to every file, so
// contracts are checked again when an input or an upstream output changes
// on disk. It calls the client, so it runs on a goroutine.
func registerWatchers(ctx context.Context, c *client) {
	if !c.supports(func(c protocol.ClientCapabilities) bool {
		w := c.Workspace
		return w != nil && w.DidChangeWatchedFiles != nil && w.DidChangeWatchedFiles.DynamicRegistration != nil && *w.DidChangeWatchedFiles.DynamicRegistration
	}) {
		c.log.Info("the client cannot watch files for the server; changes on disk are seen when a document changes")
		return
	}
	params := protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:              "icm-watch",
		Method:          protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*"}}},
	}}}
	if err := c.call(ctx, "client/registerCapability", params, nil); err != nil {
		c.log.Warn("the client refused to watch files", "err", err)
	}
}

// didChangeWatchedFiles handles workspace/didChangeWatchedFiles: the
// workspaces whose files changed on disk are checked again
// (snapshot.Set.DiskChanged), and their statuses sent when they changed.
func didChangeWatchedFiles(e *env, p *protocol.DidChangeWatchedFilesParams) error {
	changes := make([]snapshot.DiskChange, 0, len(p.Changes))
	for _, ev := range p.Changes {
		path, err := pathOf(ev.URI)
		if err != nil {
			continue
		}
		changes = append(changes, snapshot.DiskChange{Path: path, Changed: ev.Type == protocol.FileChangeTypeChanged})
	}
	for _, w := range e.set.DiskChanged(changes) {
		e.statusChanged(w)
	}
	return nil
}
