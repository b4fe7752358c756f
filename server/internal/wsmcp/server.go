// Package wsmcp is the workspace MCP server (`icm mcp workspace`): it
// lets a coding agent run ICM stages through icm. The agent reads a
// stage's exact context (the resources and prompts), does the stage's
// work, and hands the outputs in (submit_outputs); icm checks them
// against the declared outputs, records the run as the agent's, runs
// Verify and the rubrics and stops at the gate, where a person approves.
// Every operation goes through the session layer, as the CLI's and the
// editor's do: this package renders what a session returns.
package wsmcp

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Name is the server's MCP name.
const Name = "icm-workspace"

// MaxRequest caps one request to the server, a line over stdio or a body
// over HTTP. The largest a client has reason to send is a submit_outputs
// carrying an output at the default cap on one output's size
// (workflow.max_file_size, 8 MB); twice that leaves room for JSON's
// escapes and the other, smaller outputs.
const MaxRequest = 2 * workspace.DefaultMaxRead

// DefaultPoll is how often subscribed resources are read again to tell a
// client they changed.
const DefaultPoll = 2 * time.Second

// Deps are what the server needs.
type Deps struct {
	// Roots are the workspaces served: one, or every one found in a
	// folder. They are named by their folder's name.
	Roots []string
	// Open opens a session over a workspace root for one operation,
	// with its trust decision: what the session refuses for want of
	// trust, the server serves read-only.
	Open func(root string) (*session.Session, error)
	// AllowApprove offers agents the approve_stage tool: only the
	// person's own settings decide it, never a workspace's files.
	AllowApprove bool
	// SettingsPath is the settings file that allowed it, for what the
	// tool says.
	SettingsPath string
	// Version is reported to clients.
	Version string
	// Poll is how often subscribed resources are read again; 0 means
	// DefaultPoll.
	Poll time.Duration
	// Warn receives problems that stop nothing; nil drops them.
	Warn func(string)
}

// Server is the workspace MCP server.
type Server struct {
	d   Deps
	mcp *server.MCPServer
	wss []*served

	mu sync.Mutex
	// subs maps each subscribed URI to the signature it last had.
	subs map[string]string
	// listed is the signature of the resources and prompts last listed.
	listed string
	kick   chan struct{}
	// toldFull is set once the log said subscriptions past the bound
	// are not kept.
	toldFull bool
}

// served is one workspace and the name its URIs and tools use.
type served struct {
	name, root string
}

// New builds the server over d.Roots.
func New(d Deps) *Server {
	v := d.Version
	if v == "" {
		v = "dev"
	}
	if d.Poll <= 0 {
		d.Poll = DefaultPoll
	}
	s := &Server{d: d, subs: map[string]string{}, kick: make(chan struct{}, 1)}
	s.wss = nameWorkspaces(d.Roots)
	hooks := &server.Hooks{}
	hooks.AddAfterSubscribe(func(_ context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		s.subscribe(req.Params.URI)
	})
	hooks.AddAfterUnsubscribe(func(_ context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		s.mu.Lock()
		delete(s.subs, req.Params.URI)
		s.mu.Unlock()
	})
	s.mcp = server.NewMCPServer(Name, v,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithHooks(hooks),
		server.WithInstructions(instructions),
	)
	s.addTools()
	s.addTemplates()
	s.sync()
	return s
}

// instructions is what the server tells the agent once.
const instructions = `icm runs ICM workspaces: numbered stages, each with a contract (CONTEXT.md). To run a stage yourself: read its context (the probe tool or the resource icm://STAGE/context), do what it says from that context alone, hand the outputs in with submit_outputs and the context_id you read, then call request_review and stop. A person approves; you never do unless a tool named approve_stage exists.`

// MCP is the server to serve over a transport.
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// nameWorkspaces names each workspace by its folder. The first folder of
// a name keeps it; a later one gets the first free NAME-N, free meaning
// no other workspace is, or is called, that (a folder named course-2
// keeps its name beside two named course).
func nameWorkspaces(roots []string) []*served {
	out := make([]*served, 0, len(roots))
	bases := map[string]bool{}
	for _, r := range roots {
		bases[filepath.Base(r)] = true
	}
	used := map[string]bool{}
	for _, r := range roots {
		base := filepath.Base(r)
		name := base
		for n := 2; used[name]; n++ {
			if name = fmt.Sprintf("%s-%d", base, n); bases[name] {
				name = base // taken by a folder of that name: the next N
			}
		}
		used[name] = true
		out = append(out, &served{name: name, root: r})
	}
	return out
}

// several reports whether URIs and tools name the workspace.
func (s *Server) several() bool { return len(s.wss) > 1 }

// workspaceNamed finds a served workspace by name or root; "" is the only
// one, when there is one.
func (s *Server) workspaceNamed(name string) (*served, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		if !s.several() {
			return s.wss[0], nil
		}
		return nil, fault.InvalidRequest(fmt.Sprintf("this server serves %d workspaces (%s): name one in \"workspace\"", len(s.wss), s.names()), "name the workspace")
	}
	for _, w := range s.wss {
		if w.name == name || w.root == name || filepath.Clean(name) == w.root {
			return w, nil
		}
	}
	return nil, fault.NotFound(fmt.Sprintf("no workspace %q here; the workspaces are %s", name, s.names()), "name one of the workspaces this server serves")
}

func (s *Server) names() string {
	n := make([]string, len(s.wss))
	for i, w := range s.wss {
		n[i] = w.name
	}
	return strings.Join(n, ", ")
}

// open opens a session over a served workspace.
func (s *Server) open(w *served) (*session.Session, error) {
	sess, err := s.d.Open(w.root)
	if err != nil {
		return nil, err
	}
	return sess, nil
}

// guard asks the session's trust gate whether icm may act for the
// workspace: an untrusted workspace (or any served with --restricted,
// what an editor in Restricted Mode asks) is served read-only.
func (s *Server) guard(sess *session.Session, what string) error {
	return sess.Trust().Require(what)
}

func (s *Server) warn(msg string) {
	if s.d.Warn != nil {
		s.d.Warn(msg)
	}
}

// Watch reads subscribed resources again every Poll (and at once after
// this server changed a workspace), telling the client which changed,
// and lists resources and prompts again when the stages change. It
// returns when ctx is done.
func (s *Server) Watch(ctx context.Context) {
	t := time.NewTicker(s.d.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.kick:
		}
		s.sync()
		s.notifyChanged(ctx)
	}
}

// changed asks Watch to look again now: this server just wrote.
func (s *Server) changed() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// maxSubscriptions bounds the resources kept subscribed: each is read
// again every poll.
const maxSubscriptions = 256

// subscribe remembers a URI's signature as the client saw it. A URI that
// names no icm resource, or one past maxSubscriptions, is not kept (the
// client is answered all the same: mcp-go's stdio session cannot refuse).
func (s *Server) subscribe(uri string) {
	if _, err := s.parse(uri); err != nil {
		s.warn(fmt.Sprintf("a subscription to %q is not kept: %v", uri, err))
		return
	}
	s.mu.Lock()
	_, have := s.subs[uri]
	full := !have && len(s.subs) >= maxSubscriptions
	tell := full && !s.toldFull
	if tell {
		s.toldFull = true
	}
	s.mu.Unlock()
	if full {
		if tell {
			// Once: a client past the bound may keep asking.
			s.warn(fmt.Sprintf("a subscription to %q and any more are not kept: %d subscriptions are kept at most", uri, maxSubscriptions))
		}
		return
	}
	sig := s.signature(context.Background(), uri)
	s.mu.Lock()
	if _, have := s.subs[uri]; have || len(s.subs) < maxSubscriptions {
		s.subs[uri] = sig
	}
	s.mu.Unlock()
}

// notifyChanged sends notifications/resources/updated for each subscribed
// URI whose signature changed.
func (s *Server) notifyChanged(ctx context.Context) {
	s.mu.Lock()
	uris := make([]string, 0, len(s.subs))
	for u := range s.subs {
		uris = append(uris, u)
	}
	s.mu.Unlock()
	sort.Strings(uris)
	for _, u := range uris {
		sig := s.signature(ctx, u)
		s.mu.Lock()
		old, still := s.subs[u]
		if still {
			s.subs[u] = sig
		}
		s.mu.Unlock()
		if still && sig != old {
			s.mcp.SendNotificationToAllClients(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": u})
		}
	}
}

// stagesOf lists a workspace's stages as they are on disk now, with the
// For each item counts check finds; nil when it cannot be opened.
func (s *Server) stagesOf(w *served) []stageInfo {
	sess, err := s.open(w)
	if err != nil {
		s.warn(fmt.Sprintf("%s: %v", w.root, err))
		return nil
	}
	defer sess.Close()
	rep := sess.Check(nil)
	var out []stageInfo
	for _, st := range sess.Workspace().Stages {
		info := stageInfo{name: st.Name, items: -1}
		if sr := rep.Stage(st.Name); sr != nil && sr.Contract != nil {
			info.title = sr.Contract.Title
			info.items = sr.Items
		}
		out = append(out, info)
	}
	return out
}

type stageInfo struct {
	name, title string
	// items counts a For each stage's items; -1 without For each.
	items int
}
