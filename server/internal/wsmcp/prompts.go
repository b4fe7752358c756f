package wsmcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
)

// promptName is a stage's prompt: its name, after its workspace's when
// the server serves several.
func (s *Server) promptName(w *served, stage string) string {
	if s.several() {
		return w.name + "/" + stage
	}
	return stage
}

// stagePrompt is the prompt that runs one stage: "run 02-research".
func (s *Server) stagePrompt(w *served, st stageInfo) server.ServerPrompt {
	desc := "Run stage " + st.name
	if st.title != "" && st.title != st.name {
		desc += " (" + st.title + ")"
	}
	desc += " yourself: its exact context, the files to hand in with submit_outputs, and the review gate to stop at."
	opts := []mcp.PromptOption{mcp.WithPromptDescription(desc)}
	if st.items >= 0 {
		opts = append(opts, mcp.WithArgument("item", mcp.ArgumentDescription(fmt.Sprintf("For each item to work on, 1 to %d; leave it out for the whole stage.", st.items))))
	}
	name := s.promptName(w, st.name)
	stage := st.name
	return server.ServerPrompt{Prompt: mcp.NewPrompt(name, opts...), Handler: func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		item := 0
		if v := strings.TrimSpace(req.Params.Arguments["item"]); v != "" {
			if _, err := fmt.Sscan(v, &item); err != nil || item < 1 {
				return nil, fault.InvalidRequest(fmt.Sprintf("item %q: items are numbered from 1", v), "name an item by its number, from 1")
			}
		}
		switch {
		case item > 0 && st.items < 0:
			return nil, fault.InvalidRequest(fmt.Sprintf("item %d: stage %s has no For each list", item, stage), "name no item: the stage runs as one")
		case item > 0 && item > st.items:
			return nil, fault.InvalidRequest(fmt.Sprintf("item %d: stage %s has %d items", item, stage, st.items), "name an item the stage has")
		}
		return s.runPrompt(ctx, w, stage, item, st.items)
	}}
}

// runPrompt is the text that hands a stage to an agent.
// items is the number of the stage's For each items (used with item).
func (s *Server) runPrompt(ctx context.Context, w *served, stage string, item, items int) (*mcp.GetPromptResult, error) {
	sess, err := s.open(w)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	pr, err := sess.Probe(nil, stage, item)
	if err != nil {
		return nil, err
	}
	id := pr.Context.ID()
	if item > 0 {
		// An item's context is read for one part of the output; what is
		// handed in is the whole stage's, against the stage's context.
		whole, err := sess.Probe(nil, stage, 0)
		if err != nil {
			return nil, err
		}
		id = whole.Context.ID()
	}
	h := handover{uri: s.uri(w, pr.Stage.Name, kindContext, item), stageID: id, named: s.several(), wsName: w.name, item: item, items: items}
	if item > 0 {
		h.first, h.last = s.uri(w, pr.Stage.Name, kindContext, 1), s.uri(w, pr.Stage.Name, kindContext, items)
	}
	text := h.text(pr)
	return mcp.NewGetPromptResult("Run stage "+pr.Stage.Name, []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
	}), nil
}

// handover is what a stage's prompt is made from besides the probe: the
// context's URI, the id to hand in (the whole stage's), the workspace's
// name where the server serves several, and for a For each item its
// number, the count and the first and last items' URIs.
type handover struct {
	uri, stageID string
	named        bool
	wsName       string
	item, items  int
	first, last  string
}

// text tells an agent how to run a probed stage in icm's place, then
// gives it the stage's context as a run sends it.
func (h handover) text(pr *session.Probe) string {
	b := session.BriefOf(pr)
	cx := pr.Context
	var t strings.Builder
	fmt.Fprintf(&t, "Run stage %s of this ICM workspace yourself, in place of icm's model.\n\n", pr.Stage.Name)
	if h.item > 0 {
		// The item's own context id is left out: the one handed in is
		// the whole stage's.
		fmt.Fprintf(&t, "Below is exactly the context icm would send its model for item %d of %d of the stage's For each list (%s). Work from it alone for that item's part.\n\n", h.item, h.items, h.uri)
	} else {
		fmt.Fprintf(&t, "Below is exactly the context icm would send its model for it (%s, context_id %s). Work from it alone.\n\n", h.uri, cx.ID())
	}
	if b.Script {
		t.WriteString("This stage runs a script, which writes its own outputs: do not hand anything in; run it with the run_stage tool.\n\n")
	} else {
		ws := ""
		if h.named {
			ws = fmt.Sprintf(", workspace %q", h.wsName)
		}
		fmt.Fprintf(&t, "When you are done, call submit_outputs with stage %q%s, context_id %q and one file per output:\n", pr.Stage.Name, ws, h.stageID)
		for _, o := range b.Outputs {
			fmt.Fprintf(&t, "- %s\n", o)
		}
		switch {
		case b.ForEach && h.item > 0:
			fmt.Fprintf(&t, "The output is handed in whole, once: one file holding every item's part, in order. Read the other items' contexts (%s to %s) and write their parts too before you hand it in.\n", h.first, h.last)
		case b.ForEach:
			t.WriteString("The stage runs once per item of its For each list; hand in the one output holding every item's part, in order.\n")
		}
		t.WriteString("\nThen call request_review and stop: a person approves the stage. Do not approve it yourself.\n")
	}
	if b.ReviewGate != "" {
		fmt.Fprintf(&t, "\nAt the review gate the person checks:\n%s\n", b.ReviewGate)
	}
	if len(cx.UnsetVars) > 0 {
		fmt.Fprintf(&t, "\nThe context holds setup-time variables with no value: %s.\n", strings.Join(cx.UnsetVars, ", "))
	}
	fmt.Fprintf(&t, "\n# System text\n\n%s\n\n# User text\n\n%s\n", strings.TrimRight(cx.System, "\n"), strings.TrimRight(cx.User, "\n"))
	return t.String()
}
