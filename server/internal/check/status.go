package check

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/state"
)

// Pipeline derives every stage's state as a run would see it: from the
// files, with model the run's model override ("" for the configured one),
// and with a stage whose contract or inputs have errors marked invalid.
func (r *Report) Pipeline(model string) (*state.PipelineState, error) {
	return r.PipelineWith(state.PipelineOptions{Model: model})
}

// PipelineWith is Pipeline with what else the caller knows: each stage's
// model name judged by opts.Models, and what blocks a run (opts.Blocks).
// The check's errors are its own (opts.Errors is replaced).
func (r *Report) PipelineWith(opts state.PipelineOptions) (*state.PipelineState, error) {
	contracts := map[string]*contract.Contract{}
	errs := map[string][]string{}
	for _, s := range r.Stages {
		if s.Contract == nil {
			continue
		}
		contracts[s.Stage.Name] = s.Contract
		for _, f := range r.FindingsFor(s.Stage.Contract) {
			if f.Severity == contract.Error {
				errs[s.Stage.Name] = append(errs[s.Stage.Name], f.Message)
			}
		}
	}
	opts.Errors = errs
	return state.Pipeline(r.Workspace, contracts, opts)
}
