package lsp

import (
	"context"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Commands of the review on the output itself, the run view and the
// documents the server provides (docs/lsp-protocol.md).
const (
	cmdVirtualDocument = "icm.virtualDocument"
	cmdRuns            = "icm.runs"
	cmdCompareOutput   = "icm.compareOutput"
	cmdRunItem         = "icm.runItem"
	cmdModelStatus     = "icm.modelStatus"
	cmdPullModel       = "icm.pullModel"
)

// reviewCommands are the commands reviewCommand answers.
var reviewCommands = []string{cmdVirtualDocument, cmdRuns, cmdCompareOutput, cmdRunItem, cmdModelStatus, cmdPullModel}

// allCommands is every command the server executes.
func allCommands() []string {
	return append(append(append([]string(nil), commandNames...), reviewCommands...), runningCommands...)
}

// reviewCommand runs one of reviewCommands; ok is false for another.
func (s *Server) reviewCommand(ctx context.Context, command string, args commandArgs) (any, bool, error) {
	switch command {
	case cmdVirtualDocument:
		if args.URI == "" {
			return nil, true, fault.InvalidRequest(command+" needs a uri", "pass {uri}: an icm-context:, icm-call: or icm-model: URI")
		}
		res, err := s.virtualDocument(ctx, args.URI)
		return res, true, err
	case cmdRuns:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, true, err
		}
		res, err := s.runsOf(st)
		return res, true, err
	case cmdRunItem:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, true, err
		}
		if args.Stage == "" || args.Item < 1 {
			return nil, true, fault.InvalidRequest(cmdRunItem+" needs a stage and an item", "pass {workspace, stage, item (from 1), note?}")
		}
		id, err := s.runs.start(st, runRequest{stage: args.Stage, item: args.Item, note: args.Note})
		if err != nil {
			return nil, true, err
		}
		return map[string]any{"started": true, "runId": id}, true, nil
	case cmdModelStatus:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, true, err
		}
		res, err := s.modelStatusOf(ctx, st)
		return res, true, err
	case cmdPullModel:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, true, err
		}
		res, err := s.pullModel(ctx, st, args.Model)
		return res, true, err
	case cmdCompareOutput:
		st, err := s.workspaceArg(args)
		if err != nil {
			return nil, true, err
		}
		res, err := s.compareOutput(st, args.Stage, args.Path)
		return res, true, err
	}
	return nil, false, nil
}
