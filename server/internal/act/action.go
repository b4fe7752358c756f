package act

import (
	"fmt"
	"strings"
)

// Kind says what an action does, and so what may allow it.
type Kind string

// Kinds of actions. All but Self and Contact start or ask for something
// only a workspace names, so only its trust allows them.
const (
	// ToolServer starts a tool server a workspace's entry names (stdio).
	ToolServer Kind = "tool-server"
	// Script runs a Script stage's command.
	Script Kind = "script"
	// Check runs a `run:` Verify check of a contract.
	Check Kind = "check"
	// CaseCheck runs a `run:` expectation of a stage test case.
	CaseCheck Kind = "test-check"
	// Pull asks a model server to download a model (from the registry
	// its name names).
	Pull Kind = "pull"
	// Contact opens connections to a server: a model server, an HTTP
	// tool server, the page a reader fetches.
	Contact Kind = "contact"
	// Self is icm's own work whose target no workspace names: the code
	// sandbox, a reaper, a browser it drives.
	Self Kind = "icm"
)

// Action is one thing icm is about to do, described for a permit: what
// starts (Argv in Dir) or what is contacted (URL), and, when a workspace
// names it, how the workspace writes it (Named), which is what its
// person trusted.
type Action struct {
	Kind Kind
	// Argv is the process as it starts: its program and arguments.
	Argv []string
	// Path is the program's file when Argv[0] is not (a process that
	// names itself); "" means Argv[0].
	Path string
	// Dir is the folder it starts in.
	Dir string
	// URL is the server contacted: its scheme and host are the only ones
	// a client made for the action may reach.
	URL string
	// Named is the action as the workspace writes it.
	Named Named
	// Reason says why icm acts, for its own work.
	Reason string
}

// Named is an action as the workspace writes it, before any variable
// is expanded: what a permit looks for among what its person trusted.
type Named struct {
	// Line is the shell command line of a Script stage or a `run:`
	// check, run as `sh -c Line`.
	Line string
	// Command, Args, Env and Dir are a tool server entry's.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// Address is the server's address as configured: a model server's
	// (the person's setting, OLLAMA_HOST, a workspace's base_url), an
	// HTTP tool server's url.
	Address string
	// Headers are the names of the headers an HTTP tool server's entry
	// sends.
	Headers []string
	// Model is the model name a pull asks for.
	Model string
}

// String says the action for a person: "run `sh -c make`", "start tool
// server `node server.js`", "contact http://127.0.0.1:11434".
func (a Action) String() string {
	switch a.Kind {
	case Script, Check, CaseCheck:
		if a.Named.Line != "" {
			return fmt.Sprintf("run `%s`", a.Named.Line)
		}
	case ToolServer:
		if a.Named.Command != "" {
			return fmt.Sprintf("start tool server `%s`", strings.Join(append([]string{a.Named.Command}, a.Named.Args...), " "))
		}
	case Pull:
		return fmt.Sprintf("pull %s", a.Named.Model)
	case Contact:
		if a.URL != "" {
			return "contact " + a.URL
		}
		return "contact " + a.Named.Address
	}
	if len(a.Argv) > 0 {
		return fmt.Sprintf("run `%s`", strings.Join(a.Argv, " "))
	}
	if a.URL != "" {
		return "contact " + a.URL
	}
	return "act (" + string(a.Kind) + ")"
}
