package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// env is what the handlers work with: the editor's documents and
// workspaces with their snapshots, the client, and the jobs started from
// the editor (runs, stage tests, pulls). A handler takes it with the
// request's context and its params, asks the snapshot or the session,
// and converts the answer to the protocol's types.
type env struct {
	ctx    context.Context // the connection's lifetime
	log    *slog.Logger
	set    *snapshot.Set
	client *client
	bg     *group
	runs   *runs
	// tests are the stage-test runs going on, by token.
	tests testRuns
	// pulls are the model downloads going on.
	pulls pulls
	// vdocs are the read-only documents the client was given.
	vdocs vdocSet
	// statuses are what was last sent of each workspace's status.
	statuses statusCache
	// restricted is the editor's Restricted Mode (the Server's).
	restricted *atomic.Bool
	// pub sends diagnostics (the evidence's, besides the snapshot's).
	pub *publisher
}

// file places the open document a URI names in its workspace; nil,
// with no error, for a document in none. The caller releases it.
func (e *env) file(uri string) (*snapshot.File, error) {
	path, err := pathOf(uri)
	if err != nil {
		return nil, err
	}
	return e.set.File(path)
}

// workspace finds the workspace a command names; with none named and
// exactly one known, that one.
func (e *env) workspace(args commandArgs) (*snapshot.Workspace, error) {
	if args.Workspace == "" {
		all := e.set.All()
		if len(all) == 1 {
			return all[0], nil
		}
		return nil, fault.InvalidRequest(fmt.Sprintf("name the workspace: the server knows %d", len(all)), "pass {workspace} with the workspace's root folder")
	}
	if w := e.set.ByName(args.Workspace); w != nil {
		return w, nil
	}
	return nil, unknownWorkspace(args.Workspace)
}

// unknownWorkspace says that path names no workspace the server knows,
// in the words of every request that names one.
func unknownWorkspace(path string) *fault.Error {
	return fault.NotFound(path+" is not an icm workspace the server knows",
		"a workspace holds CLAUDE.md, or CONTEXT.md beside pipeline/ or stages/; open a file inside it")
}
