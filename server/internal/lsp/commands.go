package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// Commands and notifications of docs/lsp-protocol.md.
const (
	cmdStatus     = "icm.status"
	cmdRunNext    = "icm.runNext"
	cmdRunStage   = "icm.runStage"
	cmdRunAll     = "icm.runAll"
	cmdCancel     = "icm.cancel"
	cmdApprove    = "icm.approveStage"
	cmdProbe      = "icm.probe"
	cmdOutputs    = "icm.outputs"
	cmdCreateFile = "icm.createFile"

	notifyStatusChanged = "icm/statusChanged"
	notifyRunFinished   = "icm/runFinished"
)

// verbs name the snapshot's offers on the wire: the commands the server
// runs, and the two the editor runs itself (outputlens.go).
var verbs = map[snapshot.Verb]string{
	snapshot.VerbStatus:    cmdStatus,
	snapshot.VerbRunStage:  cmdRunStage,
	snapshot.VerbRunAll:    cmdRunAll,
	snapshot.VerbApprove:   cmdApprove,
	snapshot.VerbProbe:     cmdProbe,
	snapshot.VerbTest:      cmdTestRun,
	snapshot.VerbTrust:     cmdTrustList,
	snapshot.VerbCompare:   clientCompare,
	snapshot.VerbRerunItem: clientRerunItem,
}

// command is an offer as a protocol command, its target as the one
// object a command takes.
func command(o snapshot.Offer) *protocol.Command {
	arg := map[string]any{"workspace": o.On.Workspace}
	if o.On.Stage != "" {
		arg["stage"] = o.On.Stage
	}
	if o.On.Path != "" {
		arg["path"] = o.On.Path
	}
	if o.On.Item > 0 {
		arg["item"] = o.On.Item
	}
	if o.On.ItemTitle != nil {
		arg["title"] = *o.On.ItemTitle
	}
	return &protocol.Command{Title: o.Title, Command: verbs[o.Verb], Arguments: []any{arg}}
}

// Client commands the output lenses name: the extension runs them itself
// (a diff, a prompt for a note) and calls the server from there.
const (
	clientCompare   = "icm.output.compare"
	clientRerunItem = "icm.output.rerunItem"
)

// commandArgs is the one JSON object every command takes.
type commandArgs struct {
	Workspace string `json:"workspace"`
	Stage     string `json:"stage"`
	Force     bool   `json:"force"`
	Item      int    `json:"item"`
	Path      string `json:"path"`
	testArgs
	// URI names a document the server provides (icm.virtualDocument).
	URI string `json:"uri"`
	// Note is a person's feedback for one item's call (icm.runItem).
	Note string `json:"note"`
	// RunID, Index and Call name one model call of a run.
	RunID string `json:"runId"`
	Index int    `json:"index"`
	Call  int    `json:"call"`
	// Model names a model (icm.pullModel).
	Model string `json:"model"`
	// Hash is the trust list a person was shown (icm.trustGrant).
	Hash string `json:"hash"`
	// Vars are setup answers (icm.setupSave); All asks again for what is
	// set already (icm.setupPlan).
	Vars map[string]string `json:"vars"`
	All  bool              `json:"all"`
}

// executeCommand answers at once: long commands start work on goroutines
// and report through progress and notifications.
func (s *Server) executeCommand(gctx *glsp.Context, p *protocol.ExecuteCommandParams) (any, error) {
	ctx := s.ctxOf(gctx)
	var args commandArgs
	if len(p.Arguments) > 0 && p.Arguments[0] != nil {
		raw, err := json.Marshal(p.Arguments[0])
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fault.InvalidRequest(fmt.Sprintf("%s takes one object argument: %v", p.Command, err),
				"pass {workspace, stage, ...} as the command's one argument")
		}
	}
	if needsStage[p.Command] && strings.TrimSpace(args.Stage) == "" {
		return nil, fault.InvalidRequest(p.Command+" needs a stage", "pass {workspace, stage}, stage being a stage folder's name such as 01-scope")
	}
	switch p.Command {
	case cmdStatus:
		return s.statusCommand(ctx, args)
	case cmdCancel:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		return map[string]bool{"cancelled": s.runs.cancel(st.Root())}, nil
	case cmdRunNext, cmdRunStage, cmdRunAll:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		req := runRequest{stage: args.Stage, force: args.Force, all: p.Command == cmdRunAll}
		if p.Command != cmdRunStage {
			req.stage = ""
		}
		id, err := s.runs.start(st, req)
		if err != nil {
			return nil, err
		}
		return map[string]any{"started": true, "runId": id}, nil
	case cmdApprove:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		if err := s.approve(ctx, st, args.Stage, args.Force); err != nil {
			return nil, err
		}
		return map[string]bool{"approved": true}, nil
	case cmdProbe:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		return s.probe(ctx, st, args.Stage, args.Item)
	case cmdOutputs:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		return s.outputs(st, args.Stage)
	case cmdCreateFile:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		return s.createFile(st, args.Path)
	case cmdTestList:
		return s.testList(ctx, args)
	case cmdTestRun:
		return s.testRun(args)
	case cmdTestCancel:
		return map[string]bool{"cancelled": s.tests.cancel(args.Token)}, nil
	case cmdTrustList:
		return s.trustList(args)
	case cmdTrustGrant:
		return s.trustGrant(args)
	}
	if res, ok, err := s.reviewCommand(ctx, p.Command, args); ok {
		return res, err
	}
	if res, ok, err := s.runningCommand(ctx, p.Command, args); ok {
		return res, err
	}
	return nil, fault.UnknownCommand(p.Command, allCommands())
}

// needsStage lists the commands that act on one stage.
var needsStage = map[string]bool{cmdRunStage: true, cmdApprove: true, cmdProbe: true, cmdOutputs: true}

// workspaceArg finds the workspace a command names; with none named and
// exactly one known, that one.
func (s *Server) workspaceArg(args commandArgs) (*snapshot.Workspace, error) {
	if args.Workspace == "" {
		all := s.set.All()
		if len(all) == 1 {
			return all[0], nil
		}
		return nil, fault.InvalidRequest(fmt.Sprintf("name the workspace: the server knows %d", len(all)), "pass {workspace} with the workspace's root folder")
	}
	if st := s.set.ByName(args.Workspace); st != nil {
		return st, nil
	}
	return nil, unknownWorkspace(args.Workspace)
}

// unknownWorkspace says that path names no workspace the server knows,
// in the words of every request that names one.
func unknownWorkspace(path string) *fault.Error {
	return fault.NotFound(path+" is not an icm workspace the server knows",
		"a workspace holds CLAUDE.md, or CONTEXT.md beside pipeline/ or stages/; open a file inside it")
}

func (s *Server) statusCommand(ctx context.Context, args commandArgs) (any, error) {
	var list []*snapshot.Workspace
	if args.Workspace != "" {
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		list = []*snapshot.Workspace{st}
	} else {
		list = s.set.All()
	}
	out := make([]WorkspaceStatus, 0, len(list))
	for _, st := range list {
		out = append(out, statusOf(st.Status(ctx)))
	}
	return map[string]any{"workspaces": out}, nil
}

// probeResult is what icm.probe returns.
type probeResult struct {
	URI     string `json:"uri"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// probe assembles a stage's context from the current buffers, as `icm
// probe` does from disk, and names it as a read-only icm-context: document
// (the client opens it; it follows the contracts as they change). Nothing
// is written to disk.
func (s *Server) probe(ctx context.Context, st *snapshot.Workspace, stageName string, item int) (*probeResult, error) {
	title, content, err := st.Probe(ctx, stageName, item)
	if err != nil {
		return nil, err
	}
	uri := contextURI(st.Root(), stageName, item)
	s.vdocs.seen(uri, content)
	return &probeResult{URI: uri, Title: title, Content: content}, nil
}

// createFile makes an empty input file the contract names (the quick fix
// for a missing input, for clients that cannot create files themselves).
func (s *Server) createFile(st *snapshot.Workspace, p string) (any, error) {
	op, err := st.Acquire()
	if err != nil {
		return nil, err
	}
	defer op.Release()
	ws := op.Workspace()
	if p == "" {
		return nil, fault.InvalidRequest(cmdCreateFile+" needs a path", "pass {workspace, path}, path relative to the workspace")
	}
	rel := p
	if filepath.IsAbs(p) {
		rel = ws.Rel(p)
	}
	abs, err := ws.Resolve(ws.Root, rel)
	if err != nil {
		return nil, err
	}
	if _, err := ws.Disk.Lstat(abs); err == nil {
		return map[string]any{"created": false, "uri": uriOf(abs)}, nil
	}
	if err := ws.Disk.WriteFile(abs, nil, 0o644); err != nil {
		return nil, err
	}
	st.Touch(false)
	return map[string]any{"created": true, "uri": uriOf(abs)}, nil
}
