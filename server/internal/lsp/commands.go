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
	"github.com/icm-tool/icm/server/internal/state"
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

// commandArgs is the one JSON object every command takes.
type commandArgs struct {
	Workspace string `json:"workspace"`
	Stage     string `json:"stage"`
	Force     bool   `json:"force"`
	Item      int    `json:"item"`
	Path      string `json:"path"`
	testArgs
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
			return nil, fault.BadRequest(fmt.Sprintf("%s takes one object argument: %v", p.Command, err),
				"pass {workspace, stage, ...} as the command's one argument")
		}
	}
	if needsStage[p.Command] && strings.TrimSpace(args.Stage) == "" {
		return nil, fault.BadRequest(p.Command+" needs a stage", "pass {workspace, stage}, stage being a stage folder's name such as 01-scope")
	}
	switch p.Command {
	case cmdStatus:
		return s.statusCommand(ctx, args)
	case cmdCancel:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		return map[string]bool{"cancelled": s.runs.cancel(st.root)}, nil
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
	}
	return nil, fault.NoSuchCommand(p.Command, commandNames)
}

// needsStage lists the commands that act on one stage.
var needsStage = map[string]bool{cmdRunStage: true, cmdApprove: true, cmdProbe: true, cmdOutputs: true}

// workspaceArg finds the workspace a command names; with none named and
// exactly one known, that one.
func (s *Server) workspaceArg(args commandArgs) (*wsState, error) {
	if args.Workspace == "" {
		all := s.wss.all()
		if len(all) == 1 {
			return all[0], nil
		}
		return nil, fault.BadRequest(fmt.Sprintf("name the workspace: the server knows %d", len(all)), "pass {workspace} with the workspace's root folder")
	}
	if st := s.wss.byName(args.Workspace); st != nil {
		return st, nil
	}
	return nil, fault.Missing(args.Workspace+" is not an icm workspace the server knows",
		"a workspace holds CLAUDE.md, or CONTEXT.md beside pipeline/ or stages/; open a file inside it")
}

func (s *Server) statusCommand(ctx context.Context, args commandArgs) (any, error) {
	var list []*wsState
	if args.Workspace != "" {
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, err
		}
		list = []*wsState{st}
	} else {
		list = s.wss.all()
	}
	out := make([]WorkspaceStatus, 0, len(list))
	for _, st := range list {
		out = append(out, s.status(ctx, st))
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
// probe` does from disk, writes it to .icm/probe/<stage>.md and asks the
// client to show it.
func (s *Server) probe(ctx context.Context, st *wsState, stageName string, item int) (*probeResult, error) {
	a, err := st.current(ctx)
	if err != nil {
		return nil, err
	}
	sess, err := st.session()
	if err != nil {
		return nil, err
	}
	pr, err := sess.Probe(a.snap, stageName, item)
	if err != nil {
		return nil, err
	}
	stg, cx := pr.Stage, pr.Context
	title := fmt.Sprintf("Probe: %s", stg.Name)
	if item > 0 {
		title += fmt.Sprintf(" item %d", item)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n~%d tokens (system %d, user %d), estimated with %s. Unsaved editor changes are included.\n\n", title, cx.Total, cx.SystemTokens, cx.UserTokens, cx.Estimator)
	b.WriteString(partsTable(cx, a.counts[stg.Name], item))
	fmt.Fprintf(&b, "\n## System (%d tokens)\n\n%s\n## User (%d tokens)\n\n%s", cx.SystemTokens, fenced(cx.System), cx.UserTokens, fenced(cx.User))
	content := b.String()
	file := filepath.Join(st.root, state.StateDir, "probe", stg.Name+".md")
	if item > 0 {
		file = filepath.Join(st.root, state.StateDir, "probe", fmt.Sprintf("%s-item%d.md", stg.Name, item))
	}
	if err := a.ws.Disk.WriteFile(file, []byte(content), 0o644); err != nil {
		return nil, err
	}
	uri := uriOf(file)
	if s.clientSupports(func(c protocol.ClientCapabilities) bool {
		return c.Window != nil && c.Window.ShowDocument != nil && c.Window.ShowDocument.Support
	}) {
		s.goBackground(func() {
			yes := true
			var res protocol.ShowDocumentResult
			if err := s.call(s.ctx, "window/showDocument", protocol.ShowDocumentParams{URI: uri, TakeFocus: &yes}, &res); err != nil {
				s.log.Info("the client did not show the probe", "err", err)
			}
		})
	}
	return &probeResult{URI: uri, Title: title, Content: content}, nil
}

// createFile makes an empty input file the contract names (the quick fix
// for a missing input, for clients that cannot create files themselves).
func (s *Server) createFile(st *wsState, p string) (any, error) {
	ws, err := st.workspace()
	if err != nil {
		return nil, err
	}
	if p == "" {
		return nil, fault.BadRequest(cmdCreateFile+" needs a path", "pass {workspace, path}, path relative to the workspace")
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
	st.touch(false)
	return map[string]any{"created": true, "uri": uriOf(abs)}, nil
}
