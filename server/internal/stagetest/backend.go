package stagetest

import (
	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Backend is what runs need from the session that composes them: one
// model client shared by every job (so a pool's slots are shared too),
// and the way to start a stage's tools inside a test copy.
type Backend struct {
	// Client talks to the model servers.
	Client llm.Client
	// Tools returns the tool opener for a copy rooted at root (tools run
	// against the copy, never the real workspace); nil means stages with
	// tools cannot run.
	Tools func(root string) workflow.ToolOpener
	// Check are the options a job's run checks its copy with (the
	// session's, as a run of the workspace itself uses).
	Check check.Options
	// CodeBlocks runs `code-blocks` checks; nil makes them fail as unavailable.
	CodeBlocks verify.CodeChecker
	// Self is the icm binary Script stages call as $ICM_BIN ("" means this
	// executable).
	Self string
	// ChildEnv is what icm's own child processes inherit (workflow.ChildEnv
	// adds each stage's model and server).
	ChildEnv map[string]string
	// Trust, when set, gives a job's copy at root the original's trust
	// (its record), so an icm the copy's stages start acts there as in
	// the original; undo takes it back when the job ends.
	Trust func(root string) (undo func(), err error)
	// Permit is what allows a job's copy cp to run what the workspace
	// names (its Script stage, its `run:` checks, its tool servers, the
	// case's `run:` expectations): the original's trust, with the copy's
	// files pinned as they are when each starts. nil runs none of them.
	Permit func(cp *workspace.Workspace) act.Permit
}
