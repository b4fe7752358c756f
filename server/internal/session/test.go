package session

import (
	"context"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/stagetest"
)

// Test runs stage test cases (package stagetest) the way the session runs
// stages: one model client for every job (so a [[model.servers]] pool's
// slots are shared), the tool servers started inside each job's copy of
// the workspace, this binary's code checker and icm's own environment for
// child processes. The editor's or the flag's model is the matrix's model
// and the rubric judge unless opts name others. A model server that does
// not answer fails it at once, before any copy is made. Errors are
// *fault.Error; a job's own failure is in the report.
func (s *Session) Test(ctx context.Context, sel []*stagetest.Selected, opts stagetest.Options) (*stagetest.Report, error) {
	if f := s.ws.ConfigFault(); f != nil {
		return nil, f
	}
	if err := s.Require("run its test cases"); err != nil {
		return nil, err
	}
	client, err := s.Client()
	if err != nil {
		return nil, err
	}
	if needsModel(sel) {
		if err := llm.Ping(ctx, client); err != nil {
			return nil, fault.From(err)
		}
	}
	if m := s.opts.Settings.Model; m != "" {
		if len(opts.Models) == 0 {
			opts.Models = []string{m}
		}
		if opts.Judge == "" {
			opts.Judge = m
		}
	}
	b := stagetest.Backend{
		Client:     client,
		Tools:      s.ToolOpener,
		Servers:    s.box.Names(),
		CodeBlocks: s.CodeBlocks(),
		Self:       s.opts.Self,
		ChildEnv:   s.inherited(),
		Trust:      s.CarryTrust,
	}
	return stagetest.New(s.ws, b, opts).Run(ctx, sel), nil
}

// needsModel reports whether any selected case runs a model: a model
// stage, or a rubric line to judge.
func needsModel(sel []*stagetest.Selected) bool {
	for _, s := range sel {
		if len(s.Errors) > 0 {
			continue
		}
		if s.Contract.Script == nil {
			return true
		}
		for _, e := range s.Case.Expect {
			if e.Kind == "rubric" {
				return true
			}
		}
	}
	return false
}
