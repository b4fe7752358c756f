// Package reap keeps every process icm starts from outliving the work it
// was started for: a stdio MCP server with its helpers, a Script stage
// with whatever its command spawns.
//
// Ending a process group is not enough, since a helper may leave the
// group and its session (setsid). On Linux the command therefore runs
// under a reaper: this same binary, re-executed with a hook argument,
// which makes itself a child subreaper (PR_SET_CHILD_SUBREAPER) and then
// starts the command. A process below it that is orphaned, whatever its
// group, is reparented to the reaper, so the reaper can still end it.
// The reaper leads the command's process group and ends everything below
// it when the command exits, when it is signalled (see Mode), and when
// icm itself is gone (a parent-death signal, and a check of its parent
// on every tick).
//
// Any binary that links this package can be the reaper: the hook is an
// init function, so a test binary re-run this way runs no tests.
// Elsewhere than Linux there is no subreaper: Self is "" and commands run
// directly in a process group of their own.
package reap

// Mode is what the reaper does when icm signals it.
type Mode string

const (
	// Group is for a command that stops gracefully: icm signals the
	// whole process group, the command handles the signal itself, and
	// the reaper at once ends the processes below it that left the
	// group, which icm's signal never reaches. The rest are ended when
	// the command exits.
	Group Mode = "group"
	// All is for a command that is stopped outright: the first signal
	// makes the reaper end every process below it and exit.
	All Mode = "all"
)

// hookArg, followed by a Mode, is the first argument that makes a binary
// linking this package the reaper.
const hookArg = "__icm-reaper"

// Args are the arguments that run path with args under the reaper binary
// in mode: exec.Command(Self(), Args(mode, path, args)...). path must be
// a path the reaper can start as it is (looked up already).
func Args(mode Mode, path string, args []string) []string {
	return append([]string{hookArg, string(mode), path}, args...)
}
