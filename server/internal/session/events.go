package session

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// What a run reports as it goes, for the front ends to render: the
// engine's events (package workflow) and what a run returns.
type (
	// Event is one step of a run, as the engine reports it and the trace
	// keeps it.
	Event = workflow.Event
	// Summary is what a run did and what comes next.
	Summary = workflow.Summary
	// StageResult is one stage a run ran.
	StageResult = workflow.StageResult
)

// Event kinds, in the order a run produces them.
const (
	EventRunStart   = workflow.EventRunStart
	EventStageStart = workflow.EventStageStart
	EventItemStart  = workflow.EventItemStart
	EventModel      = workflow.EventModel
	EventTool       = workflow.EventTool
	EventDelta      = workflow.EventDelta
	EventItemEnd    = workflow.EventItemEnd
	EventScript     = workflow.EventScript
	EventVerify     = workflow.EventVerify
	EventStageEnd   = workflow.EventStageEnd
	EventGate       = workflow.EventGate
	EventRunEnd     = workflow.EventRunEnd
)

// ReviewItems are the things a Review Gate's text (an event's ReviewGate)
// asks a person to check before approving: its list items, or its lines
// when it is prose.
func ReviewItems(gate string) []string { return workflow.ReviewItems(gate) }

// ReviewChecklist is ReviewItems of a contract's own Review Gate.
func ReviewChecklist(c *contract.Contract) []string {
	return workflow.ReviewItems(workflow.ReviewGate(c))
}
