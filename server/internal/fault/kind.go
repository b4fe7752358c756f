package fault

import "sort"

// Kind sorts problems by what a person or a client can do about them. Its
// value is what the wire carries (docs/lsp-protocol.md): stable, lower
// case, words joined by hyphens.
type Kind string

// Kinds of problems. Keep each one in the kinds table below.
const (
	// ModelUnreachable: no model server answers at the address in force.
	ModelUnreachable Kind = "model-unreachable"
	// ModelMissing: the server answers but does not have the model.
	ModelMissing Kind = "model-missing"
	// WindowExceeded: the prompt cannot fit the model's context window.
	WindowExceeded Kind = "window-exceeded"
	// Truncated: the server read less of the prompt than was sent.
	Truncated Kind = "truncated"
	// Incomplete: the answer ran out of room before it ended.
	Incomplete Kind = "incomplete"
	// ModelFailed: the model server failed the call another way.
	ModelFailed Kind = "model-failed"
	// VerifyFailed: the stage's Verify checks fail on its outputs.
	VerifyFailed Kind = "verify-failed"
	// EditedOutput: an output holds a person's edit nobody approved, and
	// running again would overwrite it.
	EditedOutput Kind = "edited-output"
	// ContractInvalid: the stage's contract has errors, so it cannot run.
	ContractInvalid Kind = "contract-invalid"
	// Stale: something the stage read changed since it ran.
	Stale Kind = "stale"
	// NotRun: the stage has no output yet.
	NotRun Kind = "not-run"
	// RunFailed: the stage's last run failed.
	RunFailed Kind = "run-failed"
	// ScriptFailed: a Script stage's command failed.
	ScriptFailed Kind = "script-failed"
	// Locked: another run is working in the workspace.
	Locked Kind = "locked"
	// ToolFailed: a stage's MCP tool servers could not be started or used.
	ToolFailed Kind = "tool-failed"
	// ConfigInvalid: config.toml or a setting asks for something impossible.
	ConfigInvalid Kind = "config-invalid"
	// Untrusted: the work would start a command, contact a server or read
	// an environment variable the workspace names, and its person has not
	// trusted it (or it changed since).
	Untrusted Kind = "untrusted"
	// NotFound: a request named a workspace or stage that does not exist.
	NotFound Kind = "not-found"
	// InvalidRequest: a request's arguments are missing or malformed.
	InvalidRequest Kind = "invalid-request"
	// UnknownCommand: a request named a command icm does not have.
	UnknownCommand Kind = "unknown-command"
	// Cancelled: the work was cancelled.
	Cancelled Kind = "cancelled"
	// Failed: anything else.
	Failed Kind = "failed"
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
}

var kinds = map[Kind]kindInfo{
	ModelUnreachable: {"model server unreachable", ClassFailed},
	ModelMissing:     {"model not installed", ClassFailed},
	WindowExceeded:   {"context window exceeded", ClassFailed},
	Truncated:        {"prompt truncated", ClassFailed},
	Incomplete:       {"answer incomplete", ClassFailed},
	ModelFailed:      {"model call failed", ClassFailed},
	VerifyFailed:     {"Verify checks failed", ClassFailed},
	EditedOutput:     {"output edited", ClassFailed},
	ContractInvalid:  {"contract has errors", ClassFailed},
	Stale:            {"stage stale", ClassFailed},
	NotRun:           {"stage not run", ClassFailed},
	RunFailed:        {"last run failed", ClassFailed},
	ScriptFailed:     {"script failed", ClassFailed},
	Locked:           {"workspace busy", ClassFailed},
	ToolFailed:       {"tools failed", ClassFailed},
	ConfigInvalid:    {"configuration invalid", ClassFailed},
	Untrusted:        {"workspace not trusted", ClassFailed},
	NotFound:         {"not found", ClassInvalid},
	InvalidRequest:   {"invalid request", ClassInvalid},
	UnknownCommand:   {"unknown command", ClassUnknown},
	Cancelled:        {"cancelled", ClassCancelled},
	Failed:           {"failed", ClassFailed},
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

// Known reports whether k is one of the kinds above.
func (k Kind) Known() bool {
	_, ok := kinds[k]
	return ok
}

// Kinds lists every kind, sorted, for table tests over renderers.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
