// Package session is icm's application layer: the one place that composes
// what the work needs around the engine (the model client with its pool and
// fallbacks, the MCP tool servers, tracing, the code-blocks checker, the
// environment of icm's own child processes) from a workspace and a
// person's settings, and offers every operation the front ends call. The
// CLI, the language server and the workspace MCP server build none of
// these themselves and import none of the engine's packages
// (TestFrontEndsImportOnlyTheSession): they call a Session and render what
// it returns. What it returns is plain data of package report (events,
// run summaries, test reports, tool listings) or of the packages below
// the engine (state, check, assemble, promptcount); nothing here is a
// second name for an engine type, and no exported signature names one
// (TestNothingTheFrontEndsImportPassesOnAnEngineType). Its errors are
// *fault.Error.
//
// A Session keeps the composition and reading the workspace as it is
// (Status, Check, CheckOptions, Probe, Model, ServerNames). The
// operations are grouped by what a person does, each group a small value
// over the session (jobs.go):
//
//   - Runs: New and Run.Execute, whose events (report.Event) the front
//     ends render; Submission, an agent's hand-in; Step, a Script stage's
//     subcommands (Research, Critique, FixCode; CheckCode without a
//     model);
//   - Reviews: Approve, ApproveAs, Outputs, an agent's review Note and
//     LastNote; the model's version of an output (ModelVersion,
//     ReadModelVersion, ItemSpans) and the diffs (OutputDiff, EditDiff);
//   - Tests: Cases, Plan and TestPlan.Run (select, configure, run, save),
//     the saved runs and the last passing output;
//   - History: Runs, Run (one run with its tree), Exchange and ToolCall;
//   - Trust: the Decision, Require, Grant, Revoke, Reads;
//   - Doctor: Run, the check of what the work needs;
//   - ModelServer: Models, URL, Window, PreparePull;
//   - Counts: Stage and Probe, a stage's first calls counted as a run
//     sends them;
//   - Tools: List and Listing, the tool servers' listings;
//   - Setup: Plan and SaveVars, what icm setup asks and writes.
//
// Every model client a session makes is made by its newClient method (a
// folder that is not a workspace, for icm pull or icm's page reader, is
// opened as one to have a session); the page reader's, when no session
// may decide it (no config.toml, an untrusted workspace), is the Ollama
// at the address given or OLLAMA_HOST (ReaderModel). Every tool server a
// session starts comes from its toolbox (runs, stage tests, listings, a
// subcommand's tools). A session is opened with a trust decision
// (trust.go): each operation that would start a command, contact a server
// or read a variable the workspace names asks it first (Trust().Require,
// modelBlocked) and, untrusted, refuses with a fault of kind untrusted;
// a new operation asks it at its top the same way
// (TestTheGateRefusesWhatActs).
//
// # Precedence
//
// Every setting is decided by the same order on both sides:
//
//   - model: Settings.Model (the editor's icm.model) > the contract's
//     ## Model `model:` line > config.toml [model] name; with none of them
//     a model stage refuses to run. These are the configured settings a
//     stage's state is judged by. A run's RunRequest.Model (icm run
//     --model) replaces them for that run only: its records keep the model
//     it ran with and the configured one it stood in for, and staleness
//     still compares the configured ones. (ICM_MODEL is not read by runs:
//     it is what icm sets for its own child processes.)
//   - model server: Settings.Host (the editor's icm.ollama.host) >
//     config.toml [model] base_url > OLLAMA_HOST > http://127.0.0.1:11434;
//     a [[model.servers]] pool keeps its own addresses.
//   - gate: Settings.Gate (--gate, the editor's icm.workflow.gate) >
//     config.toml [workflow] gate > "explicit".
//
// An empty setting means "not set": clearing an editor setting falls back
// to the next source at once.
//
// icm's own child processes (`command = "icm"` MCP servers, a Script
// stage's icm subcommands) get the model the stage runs on as ICM_MODEL
// and, when the run talks to one Ollama server, that server as
// OLLAMA_HOST (workflow.ChildEnv), whatever the inherited environment
// says.
package session

import (
	"github.com/icm-tool/icm/server/internal/evidence"
	"os"
	"sync"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/telemetry"
	"github.com/icm-tool/icm/server/internal/toolbox"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Settings are what a person chose for this session through the flags of
// a command or the settings of an editor. Empty fields defer to the next
// source (see the package comment).
type Settings struct {
	// Model replaces the model of every stage (the editor's icm.model):
	// a configured setting, so changing it makes the stages whose model
	// it changes stale. A model for one run only is RunRequest.Model.
	Model string
	// Host is the model server's address.
	Host string
	// Gate is the gate mode ("explicit" or "rerun").
	Gate string
	// Conventions names an opt-in conventions profile that Check reports
	// on besides icm's own findings (icm check --conventions).
	Conventions string
	// HostFromWorkspace says Host came from the workspace's own editor
	// settings (VS Code's workspace scope), not the person's: it is then
	// a server the workspace names, used only when it is trusted.
	HostFromWorkspace bool
}

// Options configure a session.
type Options struct {
	Settings Settings
	// Getenv reads the environment; os.Getenv when nil.
	Getenv func(string) string
	// Self is the icm executable that `command = "icm"` servers and Script
	// stages run; "" means this process's executable.
	Self string
	// Version is icm's version, reported in traces.
	Version string
	// Warn receives problems that do not stop the work (an MCP server
	// entry that cannot be used, traces that cannot be exported); nil
	// drops them.
	Warn func(msg string)
	// Counting is what counting before a call keeps (loaded tokenizers,
	// what servers said); a server that opens many sessions shares one.
	// nil lets each session keep its own.
	Counting *Counting
	// Trust is what the person or the editor said about trust; the
	// record in the user's config folder ($ICM_CONFIG_DIR, read through
	// Getenv) says the rest (see trust.go).
	Trust TrustOptions
}

// Counting is what sessions share to count prompts before a call: each
// local model's tokenizer, loaded once, and what model servers said
// about counting (the digests an Ollama server serves, whether an
// OpenAI-compatible one has /tokenize). It is safe for concurrent use.
type Counting struct {
	files  *ollamamodel.Cache
	memory *llm.CountMemory
}

// NewCounting finds local models where a local Ollama keeps them
// (OLLAMA_MODELS through getenv, else the platform's folders).
func NewCounting(getenv func(string) string) *Counting {
	return &Counting{files: ollamamodel.NewCache(ollamamodel.ModelsDirs(getenv)), memory: llm.NewCountMemory()}
}

// Session is a workspace with a person's settings, ready to run. It is
// cheap to open (nothing starts until an operation needs it) and safe for
// concurrent use. Close it when done: that sends what tracing holds and
// stops the tool servers it started for listings.
type Session struct {
	ws    *workspace.Workspace
	opts  Options
	box   *toolbox.Box
	trust trust.Decision

	mu        sync.Mutex
	client    llm.Client
	clientErr error
	built     bool
	counter   llm.Client // for counting, with ModelFiles
	counted   bool
	catalog   *tools.Catalog
	listed    map[string][]report.ToolInfo
	exporter  *telemetry.Exporter
	traced    bool // the exporter was asked for (it may still be nil)
	closed    bool
	calib     calibrations
	// evidence keeps what outputs rest on, by output and sources.
	evidence *evidence.Cache
	// configWarned: warnConfig has said config.toml could not be read.
	configWarned sync.Once
}

// Open makes a session over ws. It reads the MCP server entries at once
// (their problems go to Warn); the model client and everything else are
// made when first needed.
func Open(ws *workspace.Workspace, opts Options) *Session {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	s := &Session{ws: ws, opts: opts, listed: map[string][]report.ToolInfo{}, evidence: evidence.NewCache(evidenceCacheSize)}
	s.trust = s.decide()
	var lookup func(string) (string, bool)
	if !s.trust.Allowed() {
		// The ${env:NAME} of an untrusted workspace's entries are not read.
		lookup = func(string) (string, bool) { return "", false }
	}
	box, problems := toolbox.LoadWith(ws, toolbox.Self{Path: opts.Self, Env: s.inherited()}, lookup)
	for _, p := range problems {
		if p.Severity == tools.SeverityError {
			s.warn(p.String())
		}
	}
	s.box = box
	return s
}

// Workspace returns the workspace the session runs.
func (s *Session) Workspace() *workspace.Workspace { return s.ws }

// Model returns the model in force before any contract's ## Model:
// Settings.Model, else config.toml's [model] name ("" when neither).
func (s *Session) Model() string {
	if m := s.opts.Settings.Model; m != "" {
		return m
	}
	return s.ws.Config.Model.Name
}

// inherited is what icm's own child processes get from this process's
// environment: the model host and model (overridden per stage), the
// SearXNG URL, the cache folder and, trusted, the API key variables the
// [model] section names and the trust itself (trust.InheritEnv), so an
// icm the run starts acts for the same workspace as the run.
func (s *Session) inherited() map[string]string {
	if !s.trust.Allowed() {
		return toolbox.SelfEnv(s.opts.Getenv)
	}
	env := toolbox.SelfEnv(s.opts.Getenv, toolbox.KeyVars(s.modelConfig())...)
	if s.trust.Needed() {
		env[trust.InheritEnv] = s.trust.Hash
	}
	return env
}

func (s *Session) warn(msg string) {
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	}
}

// ServerNames lists the configured MCP servers, sorted.
func (s *Session) ServerNames() []string { return s.box.Registry.Names() }

// ServerLocation says where a server's entry is ("config.toml:12"); false
// when no server of that name is configured.
func (s *Session) ServerLocation(name string) (string, bool) {
	srv, ok := s.box.Registry[name]
	if !ok {
		return "", false
	}
	return srv.Location(), true
}

// faulted returns v, and err as a fault (nil stays nil): what every
// operation returns to the front ends.
func faulted[T any](v T, err error) (T, error) {
	if err != nil {
		return v, fault.From(err)
	}
	return v, nil
}
