package lsp

import (
	"context"
	"fmt"
)

// Commands of the review on the output itself, the run view and the
// documents the server provides (docs/lsp-protocol.md).
const (
	cmdVirtualDocument = "icm.virtualDocument"
	cmdRuns            = "icm.runs"
	cmdCompareOutput   = "icm.compareOutput"
)

// reviewCommands are the commands reviewCommand answers.
var reviewCommands = []string{cmdVirtualDocument, cmdRuns, cmdCompareOutput}

// allCommands is every command the server executes.
func allCommands() []string {
	return append(append([]string(nil), commandNames...), reviewCommands...)
}

// reviewCommand runs one of reviewCommands; ok is false for another.
func (s *Server) reviewCommand(ctx context.Context, command string, args commandArgs) (any, bool, error) {
	switch command {
	case cmdVirtualDocument:
		if args.URI == "" {
			return nil, true, fmt.Errorf("%s needs a uri", command)
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
