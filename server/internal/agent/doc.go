// Package agent runs the tool loop of one model call: it offers a stage's
// tools to the model, runs the calls the model makes, feeds the results
// back and stops on a final answer, a call limit or a stuck guard. When the
// loop stops early it can make one last call without tools so a stage still
// yields real output ("synthesize on stop"). Clean turns the model's answer
// into the text a stage writes.
//
// The loop is bounded whatever the model does: every turn that runs tools
// spends at least one of Config.MaxToolCalls, one empty answer is nudged,
// one more answer ends the loop, and the synthesize or format pass is a
// single call, so a Run makes at most MaxToolCalls+3 model calls.
//
// The package knows nothing of MCP: the caller adapts its tool session to
// the Tools interface.
package agent
