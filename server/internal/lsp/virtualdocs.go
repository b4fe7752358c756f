package lsp

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// URI schemes of the read-only documents the server provides
// (docs/lsp-protocol.md). Nothing is written to disk for them.
const (
	// schemeContext is a stage's assembled context:
	// icm-context:/WORKSPACE/STAGE.md, with ?item=N for a For each item.
	schemeContext = "icm-context"
	// schemeCall is one model call of a run, request and reply:
	// icm-call:/WORKSPACE/RUN/STAGE/ITEM/call-N.md (ITEM 0 for none).
	schemeCall = "icm-call"
	// schemeModel is an output as the model wrote it: icm-model:/OUTPUT.
	schemeModel = "icm-model"
	// schemeProposed is the change a stage's last run proposes to a file
	// outside output/: icm-proposed:/FILE?stage=STAGE.
	schemeProposed = "icm-proposed"

	notifyVirtualDocumentChanged = "icm/virtualDocumentChanged"
)

// contextURI is the icm-context: URI of a stage (and item) of a workspace.
func contextURI(root, stage string, item int) string {
	u := url.URL{Scheme: schemeContext, Path: filepath.ToSlash(filepath.Join(root, stage+".md"))}
	if item > 0 {
		u.RawQuery = "item=" + strconv.Itoa(item)
	}
	return u.String()
}

// callURI is the icm-call: URI of one model call of a run.
func callURI(root, runID, stage string, index, call int) string {
	p := filepath.Join(root, runID, stage, strconv.Itoa(index), "call-"+strconv.Itoa(call)+".md")
	return (&url.URL{Scheme: schemeCall, Path: filepath.ToSlash(p)}).String()
}

// toolURI is the icm-call: URI of one tool call of a run: its arguments,
// the result the model was given and its error.
func toolURI(root, runID, stage string, index, call int) string {
	p := filepath.Join(root, runID, stage, strconv.Itoa(index), "tool-"+strconv.Itoa(call)+".md")
	return (&url.URL{Scheme: schemeCall, Path: filepath.ToSlash(p)}).String()
}

// modelURI is the icm-model: URI of an output file.
func modelURI(output string) string {
	return (&url.URL{Scheme: schemeModel, Path: filepath.ToSlash(output)}).String()
}

// proposedURI is the icm-proposed: URI of the change stage proposes to
// the file target.
func proposedURI(target, stage string) string {
	return (&url.URL{Scheme: schemeProposed, Path: filepath.ToSlash(target), RawQuery: "stage=" + url.QueryEscape(stage)}).String()
}

// virtualDocument runs icm.virtualDocument: the text of a document the
// server provides. It remembers icm-context: URIs it answered, so it can
// tell the client when their text changes (see contextDocsChanged).
func virtualDocument(ctx context.Context, e *env, args commandArgs) (any, error) {
	raw := args.URI
	if raw == "" {
		return nil, fault.InvalidRequest(cmdVirtualDocument+" needs a uri", "pass {uri}: an icm-context:, icm-call:, icm-model: or icm-proposed: URI")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fault.InvalidRequest(fmt.Sprintf("unable to read the URI %q: %v", raw, err), "pass an icm-context:, icm-call:, icm-model: or icm-proposed: URI").Because(err)
	}
	var text string
	switch u.Scheme {
	case schemeContext:
		text, err = contextText(ctx, e, u)
		if err == nil {
			e.vdocs.seen(raw, text)
		}
	case schemeCall:
		text, err = callText(e, u)
	case schemeModel:
		text, err = modelText(e, u)
	case schemeProposed:
		text, err = proposedText(e, u)
	default:
		return nil, fault.InvalidRequest(fmt.Sprintf("icm provides no %s: documents (only %s:, %s:, %s: and %s:)", u.Scheme, schemeContext, schemeCall, schemeModel, schemeProposed),
			"pass an icm-context:, icm-call:, icm-model: or icm-proposed: URI")
	}
	if err != nil {
		return nil, err
	}
	return map[string]string{"text": text}, nil
}

// contextText is a stage's assembled context as the probe shows it.
func contextText(ctx context.Context, e *env, u *url.URL) (string, error) {
	p := filepath.FromSlash(u.Path)
	root, stage := filepath.Dir(p), strings.TrimSuffix(filepath.Base(p), ".md")
	st := e.set.ByName(root)
	if st == nil {
		return "", unknownWorkspace(root)
	}
	item := 0
	if v := u.Query().Get("item"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return "", fault.InvalidRequest(fmt.Sprintf("item %q: items are numbered from 1", v), "pass ?item=N with N from 1")
		}
		item = n
	}
	_, content, err := st.Probe(ctx, stage, item)
	return content, err
}

// callText renders one model call of a run (call-N.md: what was offered,
// every message of the request, and the reply) or one tool call
// (tool-N.md: its arguments, the result the model was given, its error).
func callText(e *env, u *url.URL) (string, error) {
	parts := strings.Split(strings.TrimSuffix(filepath.FromSlash(u.Path), ".md"), string(filepath.Separator))
	if len(parts) < 5 {
		return "", fault.InvalidRequest(fmt.Sprintf("%s is not a call's URI (WORKSPACE/RUN/STAGE/ITEM/call-N.md or tool-N.md)", u), "use the URI icm.runs gives the call")
	}
	n := len(parts)
	root := string(filepath.Separator) + filepath.Join(parts[:n-4]...)
	runID, stage := parts[n-4], parts[n-3]
	index, err1 := strconv.Atoi(parts[n-2])
	last := parts[n-1]
	tool := strings.HasPrefix(last, "tool-")
	call, err2 := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(last, "tool-"), "call-"))
	if err1 != nil || err2 != nil {
		return "", fault.InvalidRequest(fmt.Sprintf("%s: the item and the call are numbers", u), "use the URI icm.runs gives the call")
	}
	st := e.set.ByName(root)
	if st == nil {
		return "", unknownWorkspace(root)
	}
	if tool {
		return st.ToolCall(runID, stage, index, call)
	}
	return st.Call(runID, stage, index, call)
}

// modelText is an output as the model last wrote it.
func modelText(e *env, u *url.URL) (string, error) {
	out := filepath.FromSlash(u.Path)
	st := e.set.ForPath(out)
	if st == nil {
		return "", unknownWorkspace(out)
	}
	op, err := st.Acquire()
	if err != nil {
		return "", err
	}
	defer op.Release()
	return op.Session().Reviews().ReadModelVersion(out)
}

// proposedText is the change a stage's last run proposes to a file.
func proposedText(e *env, u *url.URL) (string, error) {
	target := filepath.FromSlash(u.Path)
	st := e.set.ForPath(target)
	if st == nil {
		return "", unknownWorkspace(target)
	}
	op, err := st.Acquire()
	if err != nil {
		return "", err
	}
	defer op.Release()
	pc, err := op.Session().Reviews().Proposal(u.Query().Get("stage"), target)
	if err != nil {
		return "", err
	}
	return pc.Text, nil
}

// vdocSet remembers the context documents the client has open (those it
// asked for) and the hash of the text it got, to tell it of changes.
type vdocSet struct {
	mu   sync.Mutex
	docs map[string][32]byte
}

func (s *vdocSet) seen(uri, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docs == nil {
		s.docs = map[string][32]byte{}
	}
	s.docs[uri] = sha256.Sum256([]byte(text))
}

// under lists the remembered URIs of a workspace.
func (s *vdocSet) under(root string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for uri := range s.docs {
		if u, err := url.Parse(uri); err == nil && filepath.Dir(filepath.FromSlash(u.Path)) == root {
			out = append(out, uri)
		}
	}
	return out
}

// changed records text for uri and reports whether it differs from what
// the client last got.
func (s *vdocSet) changed(uri, text string) bool {
	h := sha256.Sum256([]byte(text))
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.docs[uri]
	s.docs[uri] = h
	return !ok || old != h
}

// contextDocsChanged tells the client which of a workspace's open context
// documents read differently after an analysis; it works off the read loop.
func (e *env) contextDocsChanged(st *snapshot.Workspace) {
	uris := e.vdocs.under(st.Root())
	if len(uris) == 0 {
		return
	}
	e.bg.Go(func() {
		for _, uri := range uris {
			u, err := url.Parse(uri)
			if err != nil {
				continue
			}
			text, err := contextText(st.Context(), e, u)
			if err != nil || !e.vdocs.changed(uri, text) {
				continue
			}
			if err := e.client.notify(notifyVirtualDocumentChanged, map[string]string{"uri": uri}); err != nil {
				e.log.Info("unable to tell the client a document changed", "uri", uri, "err", err)
			}
		}
	})
}

// probeResult is what icm.probe returns.
type probeResult struct {
	URI     string `json:"uri"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// probe runs icm.probe: it assembles a stage's context from the current
// buffers, as `icm probe` does from disk, and names it as a read-only
// icm-context: document (the client opens it; it follows the contracts
// as they change). Nothing is written to disk.
func probe(ctx context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	title, content, err := w.Probe(ctx, args.Stage, args.Item)
	if err != nil {
		return nil, err
	}
	uri := contextURI(w.Root(), args.Stage, args.Item)
	e.vdocs.seen(uri, content)
	return &probeResult{URI: uri, Title: title, Content: content}, nil
}
