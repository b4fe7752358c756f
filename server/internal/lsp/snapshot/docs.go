package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/report"
)

// The read-only documents the editor is given: a stage's assembled
// context and one model call of a run, as Markdown.

// Probe is a stage's assembled context (of For each item item, when it is
// more than 0) from the snapshot that includes the buffers, as `icm
// probe` shows it from disk: a title, and the token table then the
// system and user texts. Nothing is written to disk.
func (w *Workspace) Probe(ctx context.Context, stage string, item int) (title, text string, err error) {
	snap, err := w.Snapshot(ctx)
	defer snap.Release()
	if err != nil {
		return "", "", err
	}
	o, err := w.Acquire()
	if err != nil {
		return "", "", err
	}
	defer o.Release()
	// The snapshot's view: the open buffers laid over the disk (the bare
	// document snapshot holds only the open buffers, and every other file
	// would read missing).
	pr, err := o.sess.Probe(snap.view.Files, stage, item)
	if err != nil {
		return "", "", err
	}
	stg, cx := pr.Stage, pr.Context
	title = fmt.Sprintf("Assembled context: %s", stg.Name)
	if item > 0 {
		title += fmt.Sprintf(" item %d", item)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s. Unsaved editor changes are included; this view follows the contract as it changes.\n\n", title, contextLine(cx))
	b.WriteString(partsTable(cx, snap.counts[stg.Name], item))
	fmt.Fprintf(&b, "\n## System (%s)\n\n%s\n## User (%s)\n\n%s", approxTokens(cx.SystemTokens), fenced(cx.System), approxTokens(cx.UserTokens), fenced(cx.User))
	return title, b.String(), nil
}

// Call is one model call of a run, request and reply, as a person reads
// it.
func (w *Workspace) Call(runID, stage string, index, call int) (string, error) {
	o, err := w.Acquire()
	if err != nil {
		return "", err
	}
	defer o.Release()
	ex, err := o.sess.History().Exchange(runID, stage, index, call)
	if err != nil {
		return "", err
	}
	return exchangeMarkdown(runID, ex), nil
}

// ToolCall is one tool call of a run, as a person reads it: the
// arguments, the result the model was given, and the error.
func (w *Workspace) ToolCall(runID, stage string, index, call int) (string, error) {
	o, err := w.Acquire()
	if err != nil {
		return "", err
	}
	defer o.Release()
	ex, err := o.sess.History().ToolCall(runID, stage, index, call)
	if err != nil {
		return "", err
	}
	return toolMarkdown(runID, ex), nil
}

// toolMarkdown is a tool call as a person reads it.
func toolMarkdown(runID string, ex *report.ToolExchange) string {
	c := ex.Call
	var b strings.Builder
	fmt.Fprintf(&b, "# Tool call %d of %s", c.Call, ex.Stage)
	if ex.Item != "" {
		fmt.Fprintf(&b, ", item %d: %s", ex.Index, ex.Item)
	}
	fmt.Fprintf(&b, "\n\nRun %s · %s", runID, c.Name)
	if c.Server != "" && c.Tool != "" {
		fmt.Fprintf(&b, " (tool %s of %s)", c.Tool, c.Server)
	}
	fmt.Fprintf(&b, " · %s · %s\n", human.Duration(c.Duration), human.Size(int64(c.ResultSize)))
	args, err := json.MarshalIndent(c.Args, "", "  ")
	if err != nil || c.Args == nil {
		args = []byte("{}")
	}
	b.WriteString("\n## Arguments\n\n" + markdown.Fence("json", string(args)))
	if c.IsError {
		b.WriteString("\n## Error\n\n" + fenced(c.Err))
	}
	b.WriteString("\n## Result\n\n")
	switch {
	case ex.HasResult && c.IsError && strings.TrimSpace(ex.Result) == strings.TrimSpace(c.Err):
		b.WriteString("The model was given the error above.\n") // said once
	case ex.HasResult:
		if c.Truncated {
			b.WriteString("Cut to fit before the model read it.\n\n")
		}
		b.WriteString(fenced(ex.Result))
	default:
		b.WriteString("The model never read a result: the run stopped before its next call.\n")
	}
	return b.String()
}

// exchangeMarkdown is a model call as a person reads it.
func exchangeMarkdown(runID string, ex *report.Exchange) string {
	m := ex.Call
	var b strings.Builder
	fmt.Fprintf(&b, "# Model call %d of %s", m.Call, ex.Stage)
	if ex.Item != "" {
		fmt.Fprintf(&b, ", item %d: %s", ex.Index, ex.Item)
	}
	fmt.Fprintf(&b, "\n\nRun %s · %s · %s · %s", runID, m.Model, human.InOut(m.PromptTokens, m.OutputTokens), human.Duration(m.Duration))
	if m.DoneReason != "" {
		fmt.Fprintf(&b, " · stopped: %s", m.DoneReason)
	}
	if m.PromptEstimate > 0 {
		fmt.Fprintf(&b, " · icm counted %s before the call", human.Count(m.PromptEstimate))
		if m.NumCtx > 0 {
			// The window is the call's, sized to its prompt and answer
			// (the hover's is the most the model holds). An agent's
			// hand-in (no model of icm's) asked for none.
			fmt.Fprintf(&b, "; this call's window was %s", human.Tokens(m.NumCtx))
		}
	}
	b.WriteString("\n")
	if len(m.Tools) > 0 {
		fmt.Fprintf(&b, "\nTools offered: %s\n", strings.Join(m.Tools, ", "))
	}
	b.WriteString("\n## Request\n")
	for i, msg := range ex.Request {
		writeMessage(&b, fmt.Sprintf("%d. %s", i+1, msg.Role), msg)
	}
	b.WriteString("\n## Reply\n")
	switch {
	case m.Reply != nil:
		writeMessage(&b, m.Reply.Role, *m.Reply)
	case m.Err != "":
		fmt.Fprintf(&b, "\nThe call failed: %s\n", m.Err)
	}
	return b.String()
}

func writeMessage(b *strings.Builder, head string, msg report.Message) {
	if msg.ToolName != "" {
		head += " (result of " + msg.ToolName + ")"
	}
	fmt.Fprintf(b, "\n### %s\n\n", head)
	if msg.Thinking != "" {
		b.WriteString(fenced("thinking:\n" + msg.Thinking))
	}
	if msg.Content != "" {
		b.WriteString(fenced(msg.Content))
	}
	for _, c := range msg.ToolCalls {
		args, _ := json.MarshalIndent(c.Arguments, "", "  ")
		fmt.Fprintf(b, "Calls `%s` with:\n\n%s", c.Name, fenced(string(args)))
	}
}
