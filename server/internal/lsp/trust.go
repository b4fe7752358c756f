package lsp

import (
	"context"
	"encoding/json"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/trust"
)

// Trust in the language server. The session decides (package session's
// gate); the server only says what the editor said: its Restricted Mode
// (initializationOptions.workspaceTrusted, then
// icm/didChangeWorkspaceTrust), which lowers trust and never raises it,
// and which settings came from the workspace's own scope
// (settings.workspaceScoped). icm.trustList shows what trust covers and
// icm.trustGrant writes the same record as `icm trust`; both act at once,
// without a restart.

// Commands and the notification of docs/lsp-protocol.md.
const (
	cmdTrustList  = "icm.trustList"
	cmdTrustGrant = "icm.trustGrant"

	notifyDidChangeTrust = "icm/didChangeWorkspaceTrust"
)

// TrustStatus is a workspace's trust in its status.
type TrustStatus struct {
	// State is not-needed, trusted, untrusted, changed or restricted.
	State string `json:"state"`
	// Allowed says icm may run, contact and read what the workspace names.
	Allowed bool `json:"allowed"`
	// Summary says it in one line for a person.
	Summary string `json:"summary"`
}

// TrustInfo is icm.trustList's answer: what trusting the workspace would
// allow, and its state.
type TrustInfo struct {
	Workspace string `json:"workspace"`
	TrustStatus
	// Hash identifies the list: icm.trustGrant takes it back, so what is
	// trusted is what was shown.
	Hash  string      `json:"hash"`
	Parts []TrustPart `json:"parts"`
	// Changes are the parts a grant no longer covers (state changed).
	Changes []TrustChange `json:"changes"`
	// By says what trusts it, when it is trusted.
	By string `json:"by,omitempty"`
	// Note is a problem with the record.
	Note string `json:"note,omitempty"`
}

// TrustPart is one thing the workspace would be allowed.
type TrustPart struct {
	// Kind is command, script, check, test-check, pull, server or key.
	Kind string `json:"kind"`
	// Verb is run, pull, contact or read.
	Verb  string `json:"verb"`
	Value string `json:"value"`
	Where string `json:"where"`
	// Pins say, for a command, how each program and file it names is
	// held: "pins tools/build.sh by its content (sha256 ...)", "npx
	// fetches the code it runs when it runs: what runs cannot be pinned".
	Pins []string `json:"pins,omitempty"`
}

// TrustChange is a part the grant did not cover.
type TrustChange struct {
	TrustPart
	// Was is the value granted at the same place ("" when new, or when
	// the command is the one granted and Files say what changed).
	Was string `json:"was,omitempty"`
	// Files say what changed in the files a granted command runs:
	// "tools/build.sh changed since you trusted it".
	Files []string `json:"files,omitempty"`
}

func trustStatus(d trust.Decision) TrustStatus {
	return TrustStatus{State: string(d.State), Allowed: d.Allowed(), Summary: trust.Printable(d.Summary())}
}

func trustPart(p trust.Part) TrustPart {
	out := TrustPart{Kind: string(p.Kind), Verb: p.Kind.Verb(), Value: trust.Printable(p.Value), Where: trust.Printable(p.Where)}
	for _, pin := range p.Pins {
		out.Pins = append(out.Pins, trust.Printable(pin.String()))
	}
	return out
}

func trustInfo(d trust.Decision) TrustInfo {
	out := TrustInfo{Workspace: d.Root, TrustStatus: trustStatus(d), Hash: d.Hash, Parts: []TrustPart{}, Changes: []TrustChange{},
		By: d.By, Note: trust.Printable(d.Note)}
	for _, p := range d.Parts {
		out.Parts = append(out.Parts, trustPart(p))
	}
	for _, c := range d.Changes {
		ch := TrustChange{TrustPart: trustPart(c.Part), Was: trust.Printable(c.Was)}
		for _, f := range c.Files {
			ch.Files = append(ch.Files, trust.Printable(f))
		}
		out.Changes = append(out.Changes, ch)
	}
	return out
}

// trustOf is the trust decision of the workspace's current session.
func trustOf(st *snapshot.Workspace) (trust.Decision, error) {
	o, err := st.Acquire()
	if err != nil {
		return trust.Decision{}, err
	}
	defer o.Release()
	return o.Session().Trust().Decision(), nil
}

// trustList runs icm.trustList: what trusting the workspace would allow.
func trustList(_ context.Context, _ *env, w *snapshot.Workspace, _ commandArgs) (any, error) {
	d, err := trustOf(w)
	if err != nil {
		return nil, err
	}
	return trustInfo(d), nil
}

// trustGrant runs icm.trustGrant: the record `icm trust` writes, for
// the list whose hash the client passes (the one it showed), refused
// while the editor is in Restricted Mode. The workspace is opened again
// at once, so runs are allowed from the next request on.
func trustGrant(ctx context.Context, e *env, st *snapshot.Workspace, args commandArgs) (any, error) {
	if args.Hash == "" {
		return nil, fault.InvalidRequest(cmdTrustGrant+" needs the hash of the list it trusts",
			"pass {workspace, hash}, hash as "+cmdTrustList+" returned it")
	}
	if e.restricted.Load() {
		return nil, fault.Untrusted("the editor is in Restricted Mode: trust the folder in the editor first, then the workspace", st.Root())
	}
	o, err := st.OpenSession()
	if err != nil {
		return nil, err
	}
	defer o.Release()
	d := o.Session().Trust().Decision()
	if !d.Needed() {
		return trustInfo(d), nil
	}
	if _, err := o.Session().Trust().Grant(args.Hash, "the editor"); err != nil {
		return nil, err
	}
	st.Touch(true)
	e.statusChanged(st)
	// What the next session decides: trusted now, for what was shown.
	return trustList(ctx, e, st, args)
}

// editorTrusted reads initializationOptions.workspaceTrusted: false is the
// editor's Restricted Mode; absent, the client has no such mode.
func editorTrusted(opts any) bool {
	raw, err := json.Marshal(opts)
	if err != nil {
		return true
	}
	var o struct {
		WorkspaceTrusted *bool `json:"workspaceTrusted"`
	}
	if json.Unmarshal(raw, &o) != nil || o.WorkspaceTrusted == nil {
		return true
	}
	return *o.WorkspaceTrusted
}

// didChangeTrust handles icm/didChangeWorkspaceTrust {trusted}: every
// workspace is opened again with the editor's new state.
func (s *Server) didChangeTrust(req *jsonrpc2.Request) {
	var p struct {
		Trusted *bool `json:"trusted"`
	}
	if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil || p.Trusted == nil {
		s.log.Warn("unreadable " + notifyDidChangeTrust + ": it needs {trusted: true|false}")
		return
	}
	if s.restricted.Swap(!*p.Trusted) == !*p.Trusted {
		return
	}
	for _, w := range s.env.set.All() {
		w.Touch(true)
		s.env.statusChanged(w)
	}
}
