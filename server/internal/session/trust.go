package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// The trust gate. A session is opened with a trust decision (package
// trust): the person's pinned record, lowered by the editor's Restricted
// Mode, raised only by that record, an explicit --trust or the trusted
// run that started this process. Every operation that would start a
// command the workspace names, contact a server it names or read an
// environment variable it names asks the decision here first; refused,
// it returns a fault of kind Untrusted whose action is to trust the
// workspace. What it hands the engine carries the decision as a permit
// (package act), asked again as each process starts and each connection
// opens, with each command's files pinned as they are then. Reading goes on untrusted: checks, status, probes, counts
// (from local model files or by estimate), and icm's own tool servers'
// tool lists, taken from their definitions in this process.

// TrustOptions are what the person or their editor said about trust
// for this session; the record in the user's config folder says the rest.
type TrustOptions struct {
	// Explicit trusts the workspace for this session without a record
	// (the --trust flag, for CI).
	Explicit bool
	// Restricted is the editor's Restricted Mode: the workspace is not
	// trusted, whatever the record says.
	Restricted bool
}

// EditorHostSetting is where a workspace-scope model server setting is
// said to come from in what trust lists.
const EditorHostSetting = "editor setting icm.ollama.host (workspace scope)"

// decide makes the session's trust decision.
func (s *Session) decide() trust.Decision {
	store, err := trust.StoreFor(s.opts.Getenv)
	parts := trust.Of(s.ws, trust.Options{Extra: s.editorParts()})
	return trust.Decide(s.ws.Root, parts, trust.Inputs{
		Store: store, StoreErr: err,
		Explicit:   s.opts.Trust.Explicit,
		Restricted: s.opts.Trust.Restricted,
		Inherited:  s.opts.Getenv(trust.InheritEnv),
	})
}

// editorParts are the settings the editor took from the workspace's own
// settings (workspace scope) that trust covers: a model server.
func (s *Session) editorParts() []trust.Part {
	set := s.opts.Settings
	if set.HostFromWorkspace && strings.TrimSpace(set.Host) != "" {
		return []trust.Part{{Kind: trust.Server, Where: EditorHostSetting, Value: strings.TrimSpace(set.Host)}}
	}
	return nil
}

// permit is what the session's operations start and contact with
// (package act): its trust decision, with the files of the workspace
// pinned as they are when each command starts, and the person's own
// model servers.
func (s *Session) permit() act.Permit { return s.permitIn(s.ws) }

// permitIn is the session's permit for ws: the workspace or a stage
// test's copy of it, whose files are the ones that run.
func (s *Session) permitIn(ws *workspace.Workspace) act.Permit {
	return s.trust.Permit(ws, s.ownHosts()...)
}

// ownHosts are the model servers the person's own settings name, which
// need no trust: their host setting (not one the workspace's editor
// settings gave), OLLAMA_HOST, and Ollama's default address.
func (s *Session) ownHosts() []string {
	var own []string
	if set := s.opts.Settings; set.Host != "" && !set.HostFromWorkspace {
		own = append(own, set.Host)
	}
	if h := s.opts.Getenv("OLLAMA_HOST"); h != "" {
		own = append(own, h)
	}
	return append(own, llm.DefaultOllamaHost)
}

// Decision is the session's trust decision: what the workspace names, and
// whether icm may act for it.
func (tr Trust) Decision() trust.Decision {
	s := tr.s
	return s.trust
}

// Require returns nil when the session may act for the workspace, else
// the refusal (a *fault.Error of kind Untrusted) saying that it would
// have done what, e.g. "run its stages".
func (tr Trust) Require(what string) error {
	s := tr.s
	if s.trust.Allowed() {
		return nil
	}
	return s.refusal(what)
}

func (s *Session) refusal(what string) *fault.Error {
	f := fault.Untrusted(fmt.Sprintf("unable to %s: the workspace %s is %s", what, s.ws.Root, s.trust.Summary()), s.ws.Root)
	if s.trust.State == trust.Restricted {
		// Trusting the workspace would not lift it: the folder is held
		// read-only, whatever the workspace names.
		f.Hint = "the workspace is served read-only while Restricted Mode is on: trust the folder itself first"
	}
	return f
}

// Grant records that the person trusts the workspace for exactly
// the parts this session's decision lists, as `icm trust` and the
// editor's "Trust this workspace" do; hash, when set, must be those
// parts' hash (what the person was shown), or nothing is written. by
// says who granted it. Open a new session to act on it.
func (tr Trust) Grant(hash, by string) (*trust.Record, error) {
	s := tr.s
	d := s.trust
	if hash != "" && hash != d.Hash {
		return nil, fault.InvalidRequest("the workspace changed since its trust list was shown: nothing was trusted",
			"look at the list again, then trust what it shows")
	}
	store, err := trust.StoreFor(s.opts.Getenv)
	if err != nil {
		return nil, fault.From(err)
	}
	rec, err := store.Grant(s.ws.Root, d.Parts, by, time.Now())
	if err != nil {
		return nil, fault.From(err)
	}
	return rec, nil
}

// Revoke removes the person's record for the workspace; false when
// there was none.
func (tr Trust) Revoke() (bool, error) {
	s := tr.s
	store, err := trust.StoreFor(s.opts.Getenv)
	if err != nil {
		return false, fault.From(err)
	}
	return store.Revoke(s.ws.Root)
}

// carryTrust gives a copy of the workspace at copyRoot the trust this
// session has (a stage test's copy, whose Script stages may start icm
// again there); undo removes it.
func (s *Session) carryTrust(copyRoot string) (undo func(), err error) {
	store, err := trust.StoreFor(s.opts.Getenv)
	if err != nil {
		return func() {}, nil // nothing to carry into: the copy is as untrusted as the folder
	}
	return store.Carry(s.trust, copyRoot, time.Now())
}

// host is the model server the person's settings name ("" for none): a
// workspace-scope editor setting counts only when the workspace is
// trusted.
func (s *Session) host() string {
	set := s.opts.Settings
	if set.HostFromWorkspace && !s.trust.Allowed() {
		return ""
	}
	return set.Host
}

// modelConfig is config.toml's [model] as this session may use it. A key
// variable goes only to the server it was configured with: when the
// person's host replaces base_url, no key is read. Untrusted, nothing the
// workspace names is used (its servers, its key variables): the person's
// own settings decide.
func (s *Session) modelConfig() config.Model {
	m := s.ws.Config.Model
	if !s.trust.Allowed() {
		m.BaseURL, m.APIKeyEnv, m.Servers = "", "", nil
	}
	if h := s.host(); h != "" && len(m.Servers) == 0 && !trust.SameAddress(h, m.BaseURL) {
		m.APIKeyEnv = ""
	}
	return m
}

// modelNamed reports whether the model client a trusted session would
// build uses something the workspace names: a server, a key variable, a
// workspace-scope host.
func (s *Session) modelNamed() bool {
	set := s.opts.Settings
	if set.HostFromWorkspace && strings.TrimSpace(set.Host) != "" {
		return true
	}
	m := s.ws.Config.Model
	if len(m.Servers) > 0 {
		return true
	}
	if set.Host != "" {
		return trust.SameAddress(set.Host, m.BaseURL) && strings.TrimSpace(m.APIKeyEnv) != ""
	}
	return strings.TrimSpace(m.BaseURL) != "" || strings.TrimSpace(m.APIKeyEnv) != ""
}

// modelBlocked reports whether talking to the model server in force
// would contact a server or read a key the workspace names without trust.
func (s *Session) modelBlocked() bool { return !s.trust.Allowed() && s.modelNamed() }

// ModelServerWaits reports whether the model server is one the
// workspace names and the workspace is not trusted: icm does not ask it
// (its window, its models, its token counts) until the person trusts the
// workspace.
func (tr Trust) ModelServerWaits() bool {
	s := tr.s
	return s.modelBlocked()
}

// Reads reports whether a change to the file at abs may change the
// session's trust decision: a file of a kind that can name what acts
// (config.toml, an MCP configuration, a contract, a stage test case) or
// a file one of its commands runs. A front end that keeps a session
// opens a new one when such a file changes.
func (tr Trust) Reads(abs string) bool {
	s := tr.s
	return trust.Reads(s.ws, s.trust.Parts, abs)
}
