package wsmcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// badResource is a resource address the server cannot read.
func badResource(msg string) *fault.Error {
	return fault.InvalidRequest(msg, "use an address the server's resource list shows")
}

// scheme starts every resource URI: icm://STAGE/context with one
// workspace, icm://WORKSPACE/STAGE/context with several.
const scheme = "icm://"

// Kinds of stage resources.
const (
	kindContract = "contract"
	kindContext  = "context"
	kindOutputs  = "outputs"
	kindEvidence = "evidence"
)

// ref is a parsed resource URI.
type ref struct {
	ws    *served
	stage string
	kind  string
	// item is the For each item of a context (0: the stage's).
	item int
}

// uri is the URI of a stage resource.
func (s *Server) uri(w *served, stage, kind string, item int) string {
	u := scheme
	if s.several() {
		u += url.PathEscape(w.name) + "/"
	}
	u += url.PathEscape(stage) + "/" + kind
	if item > 0 {
		u += "/" + strconv.Itoa(item)
	}
	return u
}

// parse reads a resource URI.
func (s *Server) parse(raw string) (ref, error) {
	rest, ok := strings.CutPrefix(raw, scheme)
	if !ok {
		return ref{}, badResource(fmt.Sprintf("%q is not an icm resource: they start with %s", raw, scheme))
	}
	parts := strings.Split(rest, "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil {
			return ref{}, fmt.Errorf("%q: %w", raw, err)
		}
		parts[i] = u
	}
	var r ref
	if s.several() {
		if len(parts) < 3 {
			return ref{}, badResource(fmt.Sprintf("%q: with several workspaces a resource is icm://WORKSPACE/STAGE/KIND", raw))
		}
		w, err := s.workspaceNamed(parts[0])
		if err != nil {
			return ref{}, err
		}
		r.ws, parts = w, parts[1:]
	} else {
		r.ws = s.wss[0]
	}
	if len(parts) < 2 || parts[0] == "" {
		return ref{}, badResource(fmt.Sprintf("%q: a resource is icm://STAGE/contract, icm://STAGE/context[/ITEM] or icm://STAGE/outputs", raw))
	}
	r.stage, r.kind = parts[0], parts[1]
	switch {
	case r.kind == kindContext && len(parts) == 3:
		n, err := strconv.Atoi(parts[2])
		if err != nil || n < 1 {
			return ref{}, badResource(fmt.Sprintf("%q: items are numbered from 1", raw))
		}
		r.item = n
	case len(parts) != 2 || (r.kind != kindContract && r.kind != kindContext && r.kind != kindOutputs && r.kind != kindEvidence):
		return ref{}, badResource(fmt.Sprintf("%q: a stage's resources are contract, context, context/ITEM, outputs and evidence", raw))
	}
	return r, nil
}

// sync lists every stage's resources and prompts again when the stages
// (or their items) changed since the last listing; mcp-go tells the
// client the lists changed.
func (s *Server) sync() {
	var resources []server.ServerResource
	var prompts []server.ServerPrompt
	var sig strings.Builder
	for _, w := range s.wss {
		for _, st := range s.stagesOf(w) {
			fmt.Fprintf(&sig, "%s/%s/%d/%s;", w.name, st.name, st.items, st.title)
			resources = append(resources, s.stageResources(w, st)...)
			prompts = append(prompts, s.stagePrompt(w, st))
		}
	}
	s.mu.Lock()
	same := s.listed == sig.String()
	s.listed = sig.String()
	s.mu.Unlock()
	if same {
		return
	}
	s.mcp.SetResources(resources...)
	s.mcp.SetPrompts(prompts...)
}

// stageResources are a stage's resources: its contract, its context (and
// each For each item's) and its outputs.
func (s *Server) stageResources(w *served, st stageInfo) []server.ServerResource {
	label := st.name
	if s.several() {
		label = w.name + "/" + st.name
	}
	out := []server.ServerResource{
		{Resource: mcp.NewResource(s.uri(w, st.name, kindContract, 0), label+" contract",
			mcp.WithResourceDescription("The stage's contract (CONTEXT.md) as written."), mcp.WithMIMEType("text/markdown")), Handler: s.read},
		{Resource: mcp.NewResource(s.uri(w, st.name, kindContext, 0), label+" context",
			mcp.WithResourceDescription("The exact context a run of this stage sends the model (system and user text), its parts with token counts, its context_id, and the count of the first call: what `icm probe --json` prints."),
			mcp.WithMIMEType("application/json")), Handler: s.read},
		{Resource: mcp.NewResource(s.uri(w, st.name, kindOutputs, 0), label+" outputs",
			mcp.WithResourceDescription("The stage's outputs and their state: status, files, the last run (by a model or an agent), the approval and any review note."),
			mcp.WithMIMEType("application/json")), Handler: s.read},
		{Resource: mcp.NewResource(s.uri(w, st.name, kindEvidence, 0), label+" evidence",
			mcp.WithResourceDescription("The stage's gate line by line and what each paragraph of its Markdown outputs rests on: the passages of its inputs and of what its tools returned, each unsupported paragraph, each URL cited but never read and each number, date or quotation in no source: what `icm review --json` prints."),
			mcp.WithMIMEType("application/json")), Handler: s.read},
	}
	for i := 1; i <= min(st.items, maxListedItems); i++ {
		desc := fmt.Sprintf("The exact context of For each item %d of %d: what `icm probe --json --item %d` prints.", i, st.items, i)
		if i == maxListedItems && st.items > maxListedItems {
			desc += fmt.Sprintf(" Items past %d are not listed; read them as %s.", maxListedItems, s.uri(w, st.name, kindContext, 0)+"/N")
		}
		out = append(out, server.ServerResource{Resource: mcp.NewResource(s.uri(w, st.name, kindContext, i), fmt.Sprintf("%s context, item %d", label, i),
			mcp.WithResourceDescription(desc), mcp.WithMIMEType("application/json")), Handler: s.read})
	}
	return out
}

// maxListedItems bounds the For each items a stage lists a resource for:
// resources/list stays short whatever the list's length, and the items
// past it are read through the icm://STAGE/context/{item} template.
const maxListedItems = 100

// addTemplates names the stage resources' URI forms, so a stage made
// since the last listing can be read before it is listed.
func (s *Server) addTemplates() {
	prefix := scheme
	if s.several() {
		prefix += "{workspace}/"
	}
	s.mcp.AddResourceTemplate(mcp.NewResourceTemplate(prefix+"{stage}/{kind}", "A stage's contract, context, outputs or evidence",
		mcp.WithTemplateDescription("kind is contract (CONTEXT.md), context (what `icm probe --json` prints), outputs (their state) or evidence (what `icm review --json` prints)."),
		mcp.WithTemplateMIMEType("application/json")), s.read)
	s.mcp.AddResourceTemplate(mcp.NewResourceTemplate(prefix+"{stage}/context/{item}", "A For each item's context",
		mcp.WithTemplateDescription("What `icm probe --json --item ITEM` prints."), mcp.WithTemplateMIMEType("application/json")), s.read)
}

// read answers resources/read for every stage resource.
func (s *Server) read(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	r, err := s.parse(req.Params.URI)
	if err != nil {
		return nil, err
	}
	text, mime, err := s.readRef(ctx, r, true)
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: mime, Text: text}}, nil
}

// readRef is a resource's text and MIME type; count includes the count
// of the first call in a context (what takes time: tool servers may be
// listed).
func (s *Server) readRef(ctx context.Context, r ref, count bool) (string, string, error) {
	sess, err := s.open(r.ws)
	if err != nil {
		return "", "", err
	}
	defer sess.Close()
	switch r.kind {
	case kindContract:
		st, err := sess.Workspace().Stage(r.stage)
		if err != nil {
			return "", "", err
		}
		src, err := sess.Workspace().Files.ReadFile(st.Contract)
		if err != nil {
			return "", "", fmt.Errorf("unable to read %s: %w", st.ContractRel(), err)
		}
		return string(src), "text/markdown", nil
	case kindContext:
		doc, _, err := s.probeDoc(ctx, sess, r.stage, r.item, count)
		if err != nil {
			return "", "", err
		}
		data, err := doc.JSON()
		return string(data), "application/json", err
	case kindEvidence:
		rv, err := sess.Reviews().Review(ctx, r.stage)
		if fault.KindOf(err) == fault.KindNotRun {
			// Nothing to review yet: said as data, not as an error.
			rv, err = &report.Review{Stage: r.stage, State: "pending", Outputs: []string{}, Lines: []report.ReviewLine{}}, nil
		}
		if err != nil {
			return "", "", err
		}
		data, err := json.MarshalIndent(rv, "", "  ")
		return string(data) + "\n", "application/json", err
	default:
		doc, err := s.outputsDoc(sess, r.stage)
		if err != nil {
			return "", "", err
		}
		data, err := json.MarshalIndent(doc, "", "  ")
		return string(data) + "\n", "application/json", err
	}
}

// probeDoc is a stage's context document as `icm probe --json` makes it;
// without count, the count is left out (for signatures).
func (s *Server) probeDoc(ctx context.Context, sess *session.Session, stage string, item int, count bool) (*session.ProbeDocument, *session.Probe, error) {
	pr, err := sess.Probe(nil, stage, item)
	if err != nil {
		return nil, nil, err
	}
	if !count {
		return pr.Document(nil), pr, nil
	}
	return pr.Document(sess.Counts().Probe(ctx, pr)), pr, nil
}

// signature is what a subscribed resource is compared by: its text, with
// a context's count left out (counting may start tool servers, too much
// for every poll; what the count depends on is the context's text and
// the model, which are in).
func (s *Server) signature(ctx context.Context, uri string) string {
	r, err := s.parse(uri)
	if err != nil {
		return "unknown"
	}
	text, _, err := s.readRef(ctx, r, false)
	if err != nil {
		text = "error: " + err.Error()
	}
	if r.kind == kindContext {
		if sess, err := s.open(r.ws); err == nil {
			text += "\nmodel: " + sess.Model()
			sess.Close()
		}
	}
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// outputsDoc is a stage's outputs resource.
type outputsDoc struct {
	Stage  string `json:"stage"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	// Shown is how the state reads in icm status and the editor.
	Shown   string       `json:"shown"`
	Outputs []outputFile `json:"outputs"`
	LastRun *lastRun     `json:"last_run,omitempty"`
	// Approval is who approved the outputs as they are; nil when they
	// are not approved.
	Approval   *approval         `json:"approval,omitempty"`
	ReviewNote *state.ReviewNote `json:"review_note,omitempty"`
	// Next is what the person (or the agent) does next in the workspace.
	Next state.Next `json:"next"`
}

type outputFile struct {
	// Path is workspace-relative; File absolute.
	Path   string `json:"path"`
	File   string `json:"file"`
	Exists bool   `json:"exists"`
	Hash   string `json:"hash,omitempty"`
}

type lastRun struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
	// By is the model that ran it, or agent:NAME when an agent handed
	// the outputs in.
	By        string               `json:"by"`
	ContextID string               `json:"context_id,omitempty"`
	Verify    []state.VerifyResult `json:"verify,omitempty"`
	Rubric    []state.RubricCheck  `json:"rubric,omitempty"`
}

type approval struct {
	By     string `json:"by"`
	Agent  bool   `json:"by_agent"`
	Forced bool   `json:"forced,omitempty"`
	Time   string `json:"approved_at"`
}

func (s *Server) outputsDoc(sess *session.Session, stage string) (*outputsDoc, error) {
	ws := sess.Workspace()
	st, err := ws.Stage(stage)
	if err != nil {
		return nil, err
	}
	p, _, err := sess.Status()
	if err != nil {
		return nil, err
	}
	var ss *state.StageState
	for _, x := range p.Stages {
		if x.Stage == st.Name {
			ss = x
		}
	}
	if ss == nil {
		return nil, fmt.Errorf("stage %s has no state", st.Name)
	}
	doc := &outputsDoc{Stage: st.Name, Status: string(ss.Status), Reason: ss.Reason, Outputs: []outputFile{}, Next: p.Next}
	face := state.FaceOf(ss, false, "")
	doc.Shown = face.Label
	if face.Detail != "" {
		doc.Shown += ": " + face.Detail
	}
	outs, err := sess.Reviews().Outputs(st.Name)
	if err != nil {
		return nil, err
	}
	for _, o := range outs.Current {
		rel := ws.Rel(o.Path)
		f := outputFile{Path: rel, File: o.Path, Exists: o.Exists}
		if h := ss.Outputs[rel]; h != "" && h != state.Missing {
			f.Hash = h
		}
		doc.Outputs = append(doc.Outputs, f)
	}
	if rec := ss.Record; rec != nil {
		doc.LastRun = &lastRun{RunID: rec.RunID, Status: rec.Status, By: rec.Model, ContextID: rec.ContextID, Verify: rec.Verify, Rubric: rec.Rubric}
	}
	if a := ss.Approval; a != nil && ss.Status == state.Approved {
		doc.Approval = &approval{By: a.By, Agent: a.ByAgent(), Forced: a.Forced, Time: a.ApprovedAt.UTC().Format("2006-01-02T15:04:05Z")}
	}
	if n, err := sess.Reviews().LastNote(st.Name); err == nil && n != nil && ss.Record != nil && n.RunID == ss.Record.RunID {
		doc.ReviewNote = n
	}
	return doc, nil
}
