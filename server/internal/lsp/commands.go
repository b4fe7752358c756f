package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
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
			return nil, fmt.Errorf("%s takes one object argument {workspace, stage, ...}: %w", p.Command, err)
		}
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
		if p.Command == cmdRunStage && args.Stage == "" {
			return nil, fmt.Errorf("%s needs a stage", p.Command)
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
	}
	return nil, fmt.Errorf("unknown command %q; icm offers: %s", p.Command, strings.Join(commandNames, ", "))
}

// workspaceArg finds the workspace a command names; with none named and
// exactly one known, that one.
func (s *Server) workspaceArg(args commandArgs) (*wsState, error) {
	if args.Workspace == "" {
		all := s.wss.all()
		if len(all) == 1 {
			return all[0], nil
		}
		return nil, fmt.Errorf("name the workspace: the server knows %d", len(all))
	}
	if st := s.wss.byName(args.Workspace); st != nil {
		return st, nil
	}
	return nil, fmt.Errorf("%s is not an icm workspace (no CLAUDE.md, or CONTEXT.md beside pipeline/ or stages/)", args.Workspace)
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
	stg, err := a.ws.Stage(stageName)
	if err != nil {
		return nil, err
	}
	sr := a.report.Stage(stg.Name)
	if sr == nil || sr.Contract == nil {
		return nil, fmt.Errorf("stage %s has no readable %s", stg.Name, workspace.ContractFile)
	}
	opts := assemble.Options{AllowMissing: true, ProducedBy: a.report.ProducedBy}
	if item > 0 {
		if err := selectItem(a.ws, stg, sr, item, &opts); err != nil {
			return nil, err
		}
	}
	cx, err := assemble.Stage(a.ws, stg, sr.Contract, opts)
	if err != nil {
		return nil, err
	}
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
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, fmt.Errorf("unable to create %s: %w", filepath.Dir(file), err)
	}
	if err := state.WriteFile(file, []byte(content), 0o644); err != nil {
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

// selectItem sets the For each item of a probe, as `icm probe --item` does.
func selectItem(ws *workspace.Workspace, stg *workspace.Stage, sr *check.StageReport, item int, opts *assemble.Options) error {
	return assemble.SelectItem(ws, stg, sr.Contract, item, opts)
}

// createFile makes an empty input file the contract names (the quick fix
// for a missing input, for clients that cannot create files themselves).
func (s *Server) createFile(st *wsState, p string) (any, error) {
	ws, err := st.workspace()
	if err != nil {
		return nil, err
	}
	if p == "" {
		return nil, fmt.Errorf("%s needs a path", cmdCreateFile)
	}
	rel := p
	if filepath.IsAbs(p) {
		rel = ws.Rel(p)
	}
	abs, err := ws.Resolve(ws.Root, rel)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err == nil {
		return map[string]any{"created": false, "uri": uriOf(abs)}, nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("unable to create %s: %w", filepath.Dir(abs), err)
	}
	if err := state.WriteFile(abs, nil, 0o644); err != nil {
		return nil, err
	}
	st.touch(false)
	return map[string]any{"created": true, "uri": uriOf(abs)}, nil
}
