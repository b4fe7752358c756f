package fault

// Kind sorts problems by what a person or a client can do about them. Its
// value is what the wire carries (docs/lsp-protocol.md): stable, lower
// case, words joined by hyphens.
type Kind string

// Kinds of problems. Keep each one in the kinds table below.
const (
	// KindModelUnreachable: no model server answers at the address in force.
	KindModelUnreachable Kind = "model-unreachable"
	// KindModelMissing: the server answers but does not have the model.
	KindModelMissing Kind = "model-missing"
	// KindWindowExceeded: the prompt cannot fit the model's context window.
	KindWindowExceeded Kind = "window-exceeded"
	// KindTruncated: the server read less of the prompt than was sent.
	KindTruncated Kind = "truncated"
	// KindIncomplete: the answer ran out of room before it ended.
	KindIncomplete Kind = "incomplete"
	// KindModelFailed: the model server failed the call another way.
	KindModelFailed Kind = "model-failed"
	// KindRunnerStopped: the model server's runner (the process that runs
	// the model) stopped under the call: it crashed or ran out of memory.
	KindRunnerStopped Kind = "runner-stopped"
	// KindVerifyFailed: the stage's Verify checks fail on its outputs.
	KindVerifyFailed Kind = "verify-failed"
	// KindEditedOutput: an output holds a person's edit nobody approved, and
	// running again would overwrite it.
	KindEditedOutput Kind = "edited-output"
	// KindContractInvalid: the stage's contract has errors, so it cannot run.
	KindContractInvalid Kind = "contract-invalid"
	// KindStale: something the stage read changed since it ran.
	KindStale Kind = "stale"
	// KindNotRun: the stage has no output yet.
	KindNotRun Kind = "not-run"
	// KindUnapproved: the stage reads the output of an earlier stage
	// nobody has approved yet (awaiting review, or not run).
	KindUnapproved Kind = "unapproved"
	// KindRunFailed: the stage's last run failed.
	KindRunFailed Kind = "run-failed"
	// KindScriptFailed: a Script stage's command failed.
	KindScriptFailed Kind = "script-failed"
	// KindLocked: another run is working in the workspace.
	KindLocked Kind = "locked"
	// KindToolFailed: a stage's MCP tool servers could not be started or used.
	KindToolFailed Kind = "tool-failed"
	// KindConfigInvalid: config.toml or a setting asks for something impossible.
	KindConfigInvalid Kind = "config-invalid"
	// KindUntrusted: the work would start a command, contact a server or read
	// an environment variable the workspace names, and its person has not
	// trusted it (or it changed since).
	KindUntrusted Kind = "untrusted"
	// KindNotFound: a request named a workspace or stage that does not exist.
	KindNotFound Kind = "not-found"
	// KindInvalidRequest: a request's arguments are missing or malformed.
	KindInvalidRequest Kind = "invalid-request"
	// KindUnknownCommand: a request named a command icm does not have.
	KindUnknownCommand Kind = "unknown-command"
	// KindCancelled: the work was cancelled.
	KindCancelled Kind = "cancelled"
	// KindFailed: something went wrong that is no bug of icm's and has no
	// more specific kind (the system refused a file, a deadline passed, a
	// page could not be read), with what to do about it.
	KindFailed Kind = "failed"
	// KindInternal: a bug in icm: an error nobody gave a kind where it
	// was made.
	KindInternal Kind = "internal"
)

// Class says how a protocol answers a kind of problem: the language
// server turns it into a JSON-RPC error code.
type Class int

// Classes of kinds.
const (
	// ClassFailed: a well-formed request that could not be done.
	ClassFailed Class = iota
	// ClassInvalid: the request's arguments are wrong (invalid params).
	ClassInvalid
	// ClassUnknown: the request names something icm does not offer
	// (method not found).
	ClassUnknown
	// ClassCancelled: the request was cancelled.
	ClassCancelled
)

type kindInfo struct {
	// title names the kind in a few words, for headings and logs.
	title string
	class Class
	// model is set on the kinds a model server's answer (or its absence)
	// causes.
	model bool
}

var kinds = map[Kind]kindInfo{
	KindModelUnreachable: {"model server unreachable", ClassFailed, true},
	KindModelMissing:     {"model not installed", ClassFailed, true},
	KindWindowExceeded:   {"context window exceeded", ClassFailed, true},
	KindTruncated:        {"prompt truncated", ClassFailed, true},
	KindIncomplete:       {"answer incomplete", ClassFailed, true},
	KindModelFailed:      {"model call failed", ClassFailed, true},
	KindRunnerStopped:    {"model runner stopped", ClassFailed, true},
	KindVerifyFailed:     {"Verify checks failed", ClassFailed, false},
	KindEditedOutput:     {"output edited", ClassFailed, false},
	KindContractInvalid:  {"contract has errors", ClassFailed, false},
	KindStale:            {"stage stale", ClassFailed, false},
	KindNotRun:           {"stage not run", ClassFailed, false},
	KindUnapproved:       {"earlier stage not approved", ClassFailed, false},
	KindRunFailed:        {"last run failed", ClassFailed, false},
	KindScriptFailed:     {"script failed", ClassFailed, false},
	KindLocked:           {"workspace busy", ClassFailed, false},
	KindToolFailed:       {"tools failed", ClassFailed, false},
	KindConfigInvalid:    {"configuration invalid", ClassFailed, false},
	KindUntrusted:        {"workspace not trusted", ClassFailed, false},
	KindNotFound:         {"not found", ClassInvalid, false},
	KindInvalidRequest:   {"invalid request", ClassInvalid, false},
	KindUnknownCommand:   {"unknown command", ClassUnknown, false},
	KindCancelled:        {"cancelled", ClassCancelled, false},
	KindFailed:           {"failed", ClassFailed, false},
	KindInternal:         {"bug in icm", ClassFailed, false},
}

// Title names the kind in a few words; an unknown kind reads as itself.
func (k Kind) Title() string {
	if i, ok := kinds[k]; ok {
		return i.title
	}
	return string(k)
}

// Class returns how protocols answer the kind; unknown kinds are ClassFailed.
func (k Kind) Class() Class { return kinds[k].class }

// OfModel reports whether the kind is a model call's failure (the server
// unreachable, the model missing, the prompt or the answer too long, any
// other failed call), as opposed to the workspace's or the request's.
func (k Kind) OfModel() bool { return kinds[k].model }

// Known reports whether k is one of the kinds above.
func (k Kind) Known() bool {
	_, ok := kinds[k]
	return ok
}
