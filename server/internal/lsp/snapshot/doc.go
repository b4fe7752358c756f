// Package snapshot is what icm's language server knows of the editor's
// workspaces, and the answers it gives about them, in terms of icm's own
// values: byte ranges of a buffer, paths, Markdown, findings, offers of a
// command. It knows nothing of LSP, glsp or JSON-RPC (package lsp
// converts; TestSnapshotKnowsNoProtocol keeps it so).
//
// The parts, as gopls has them:
//
//   - A Set is the editor's side: the documents it has open and the
//     Workspaces they belong to. The editor's changes come in through it
//     (Opened, Changed, Saved, Closed, DiskChanged), each one updating the
//     documents and asking the workspace concerned for a new snapshot.
//   - A Workspace is one workspace, alive while its folder is open in the
//     editor: the workspace as opened from disk with a session over it
//     (an Opening, reopened when its folders, config or the settings
//     change), its latest Snapshot, and the background work that makes
//     the next one.
//   - A Snapshot is one analysis: the buffers at one moment laid over the
//     disk, what `icm check` finds in them (check.Run, one code path with
//     the command), each stage's first calls counted as a run sends them,
//     and the model's window and the tool listings as known then, over
//     the opening it was made with. It never changes once made; a change
//     makes the next one. Changes that arrive while one is being made are
//     folded into one follow-up.
//   - A File is an open document placed in its workspace as the
//     workspace is open now, the contract parsed from the buffer. The
//     questions a handler asks are its methods (Hover, Complete, Lenses,
//     Actions, Definition, Links, Outline) and the Workspace's (Status,
//     Probe, Call, Cases); Set.Stages lists stages by name.
//
// Stage states and review state are read from the disk when asked
// (Workspace.Status), not frozen in a snapshot: a run changes them while
// no buffer changes. The status adds the latest snapshot's counts and
// marks the stage a run from the editor is working on.
//
// Who may wait on what:
//
//   - The editor's changes never wait: they update the documents and
//     kick the workspace's analysis goroutine (the language server calls
//     them on its read loop).
//   - A workspace's analysis goroutine (one each, debounced by
//     Options.Debounce) never waits on a model or tool server: it checks
//     with the facts known so far, and starts in the background what is
//     missing (the model's window, the installed models, a tool
//     server's listing), whose answer brings a new analysis when it
//     changes one. Counting is bounded (a second per analysis) and comes
//     after the findings are published.
//   - A question waits, within its request's context, for what its
//     answer needs and no more: the snapshot that includes every change
//     made so far (a title's hover also for a first answer about the
//     window), a tool listing for a tool's hover or completion, the
//     installed models for their completion. Placing a File waits for
//     nothing but the workspace's opening.
//   - Background goroutines run through Options.Go, which the owner
//     waits for before it stops; Close stops every workspace.
//
// Openings are counted: a Workspace, each Snapshot and each File or
// caller of Acquire and OpenSession holds one, and the last Release
// closes its session and its workspace's descriptors.
package snapshot
