package cli

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// How a tool of the workspace server meets a workspace it serves
// read-only (untrusted, or any with --restricted).
const (
	toolReads = "reads" // answered; it only reads
	toolAsks  = "asks"  // answered; it asks the person and keeps nothing
	toolActs  = "acts"  // refused: it writes outputs or approvals, or runs
)

// toolCall is one call the matrix makes; id gives a stage's context_id.
type toolCall func(id func(stage string) string) map[string]any

// workspaceToolTrust classifies every tool the workspace server offers,
// with the calls the matrix makes of it. A tool added to the server
// fails TestTrustMatrixWorkspaceServer (and
// TestRestrictedIsReadOnlyWhateverTheWorkspaceNames) until it is
// classified here.
var workspaceToolTrust = map[string]struct {
	class string
	calls []toolCall
}{
	"status": {toolReads, []toolCall{nil}},
	"check":  {toolReads, []toolCall{nil}},
	"next":   {toolReads, []toolCall{nil}},
	"probe":  {toolReads, []toolCall{stageArgs("01-a"), stageArgs("03-c")}},
	// A stage awaiting no review: the agent is told so; nothing is kept.
	"request_review": {toolAsks, []toolCall{stageArgs("01-a")}},
	// 02-b is a Script stage, 01-a a model stage with a run: check.
	"run_stage": {toolActs, []toolCall{stageArgs("02-b"), stageArgs("01-a"), nil}},
	"submit_outputs": {toolActs, []toolCall{func(id func(string) string) map[string]any {
		return map[string]any{"stage": "01-a", "context_id": id("01-a"), "files": []any{map[string]any{"path": "output/a.md", "content": "a\n"}}}
	}}},
	"approve_stage": {toolActs, []toolCall{stageArgs("01-a")}},
}

// stageArgs is a call naming one stage.
func stageArgs(stage string) toolCall {
	return func(func(string) string) map[string]any { return map[string]any{"stage": stage} }
}

// callEveryTool calls every tool the server lists, as workspaceToolTrust
// says, on a workspace served read-only: one that reads or asks is
// answered, one that acts is refused with refused in its text. The
// server must offer approve_stage (the person's settings allow it), so
// that every tool is tried.
func callEveryTool(t *testing.T, c *mcpClient, refused string) {
	t.Helper()
	id := func(stage string) string {
		text, isErr := c.tool("probe", map[string]any{"stage": stage})
		if isErr {
			t.Fatalf("probe %s read-only: %s", stage, text)
		}
		return decodeProbe(t, text).ContextID
	}
	listed := names(c.result("tools/list", map[string]any{}), "tools")
	sort.Strings(listed)
	for _, name := range listed {
		rule, ok := workspaceToolTrust[name]
		if !ok {
			t.Errorf("tool %s is not classified in workspaceToolTrust: say whether it reads, asks or acts", name)
			continue
		}
		for _, call := range rule.calls {
			var args map[string]any
			if call != nil {
				args = call(id)
			}
			text, isErr := c.tool(name, args)
			switch {
			case rule.class == toolActs && (!isErr || !strings.Contains(text, refused)):
				t.Errorf("%s %v acts and was not refused read-only (isError %v): %s", name, args, isErr, text)
			case rule.class != toolActs && isErr:
				t.Errorf("%s %v %s and was refused read-only: %s", name, args, rule.class, text)
			}
		}
	}
	for name := range workspaceToolTrust {
		if !slices.Contains(listed, name) {
			t.Errorf("workspaceToolTrust classifies %s, which the server does not offer", name)
		}
	}
}
