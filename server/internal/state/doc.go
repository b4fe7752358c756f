// Package state keeps what icm knows about runs in plain files inside the
// workspace: a run record and an approval per stage, previous versions of
// outputs, and the lock that lets one run at a time work in a workspace.
// A stage's state (pending, awaiting review, approved, stale, failed) is
// derived from these files and the files on disk, never stored. Every
// file is read and written through the workspace's Root, atomically, so a
// state folder linked out of the workspace is refused, never written.
package state
