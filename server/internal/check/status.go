package check

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/state"
)

// Pipeline derives every stage's state as a run would see it: from the
// files, with model the run's model override ("" for the configured one),
// and with a stage whose contract or inputs have errors marked invalid.
func (r *Report) Pipeline(model string) (*state.PipelineState, error) {
	return r.PipelineWith(model, nil)
}

// PipelineWith is Pipeline judging each stage's model name by models
// (see state.ModelCheck); nil judges none.
func (r *Report) PipelineWith(model string, models state.ModelCheck) (*state.PipelineState, error) {
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
	return state.Pipeline(r.Workspace, contracts, state.PipelineOptions{Model: model, Errors: errs, Models: models})
}
