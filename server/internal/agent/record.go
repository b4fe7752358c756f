package agent

import (
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
)

// record is a chat message as a model event keeps it. llm.Message is
// what goes over the wire to a model server; the event is what the trace
// and the front ends read, so the loop copies each message once, where
// the call is made.
func record(m llm.Message) report.Message {
	out := report.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 {
		out.ToolCalls = make([]report.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			out.ToolCalls[i] = report.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
	}
	return out
}

// records is record of each message, in order.
func records(ms []llm.Message) []report.Message {
	out := make([]report.Message, len(ms))
	for i, m := range ms {
		out[i] = record(m)
	}
	return out
}
