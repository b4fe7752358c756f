package workflow

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// The faults below are made in more than one place of the engine; each
// says what to do in the same words wherever it is made.

// noContract is a stage whose contract cannot be read.
func noContract(stage string) *fault.Error {
	return fault.Failed(fmt.Sprintf("stage %s has no readable %s", stage, workspace.ContractFile),
		"check that the stage folder holds its "+workspace.ContractFile+" and that icm may read it", nil).In(stage)
}

// wholeStage refuses running one item of a stage again where only the
// whole stage can run; msg says why.
func wholeStage(stage, msg string) *fault.Error {
	return fault.Failed(msg, "run the whole stage", nil).In(stage).With(fault.Action{ID: fault.RunStage, Stage: stage})
}

// noOutput is a model that did not write the stage's outputs; msg says
// which.
func noOutput(stage, msg string) *fault.Error {
	return fault.ModelFailed(msg, "run the stage again; a model that calls tools poorly may do better with the outputs named plainly in the Process, or another model may").In(stage)
}
