package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/toolbox"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

type runFlags struct {
	all, force, quiet, asJSON bool
	stage, model, gate        string
	item                      int
	note                      string
}

func newRunCmd(env *Env, g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the next stage that needs it and stop at its review gate",
		Long: `Run runs the workspace's next stage that needs running (not run yet, stale
because something it read changed, or failed), writes its output, runs its
Verify checks and stops at the review gate, printing where to look and how
to approve. A stage approved and unchanged never runs again.

With --all it runs every stage that needs it without stopping. With --stage
it runs that one stage. An output a person edited and did not approve is
never overwritten without --force (the previous version is kept in
history/versions/ either way).

With --stage and --item N, a For each stage runs only its Nth item again
(optionally with --note, feedback for that one call) and only that item's
section of the output is replaced: a person's edits in the other sections
stay. The stage then needs approving again, as a whole.`,
		Example: "  icm run\n  icm run --all\n  icm run --stage 02-research --model llama3.1:8b\n  icm run --stage 04-draft --item 3 --note \"shorter, and name the port\"",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.note != "" && f.item == 0 {
				return fmt.Errorf("--note is feedback for one item: give the item with --item N (and its stage with --stage)")
			}
			ws, err := openWorkspace(env, g)
			if err != nil {
				return err
			}
			return runWorkspace(cmd.Context(), env, ws, f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.all, "all", false, "run every stage that needs it, without stopping at gates")
	fl.StringVar(&f.stage, "stage", "", "run this stage only (even when approved)")
	fl.IntVar(&f.item, "item", 0, "with --stage, run only this For each item (1-based) again, keeping the rest of the output")
	fl.StringVar(&f.note, "note", "", "with --item, feedback for that item's call (what to change)")
	fl.BoolVar(&f.force, "force", false, "overwrite outputs edited and not approved")
	fl.StringVar(&f.model, "model", "", "use this model instead of the configured one")
	fl.StringVar(&f.gate, "gate", "", `gate mode for this run: "explicit" or "rerun" (running again approves)`)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only the result")
	fl.BoolVar(&f.asJSON, "json", false, "print events and the summary as JSON lines")
	return cmd
}

// unreachableError says no model server answers; its hint lists the ways
// to start one.
type unreachableError struct {
	url string
	err error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("no model server answers at %s: %v", e.url, e.err)
}

func (e *unreachableError) Hint() string {
	return "start Ollama with `ollama serve` (then `ollama pull` the model), or the whole stack with " +
		"`docker compose -f docker/compose.yml up -d` (see docker/README.md), or point OLLAMA_HOST at a running server"
}

// probeModelServer fails fast, with advice, when the next stage to run
// needs a model and no server answers, instead of retrying for a while.
func probeModelServer(ctx context.Context, ws *workspace.Workspace, client llm.Client, f *runFlags) error {
	o, ok := client.(interface{ BaseURL() string })
	if !ok {
		return nil
	}
	p, err := pipelineState(ws)
	if err != nil || p.Next.Action != state.ActionRun && f.stage == "" && !f.all {
		return nil
	}
	name := p.Next.Stage
	if f.stage != "" {
		name = f.stage
	}
	if st, err := ws.Stage(name); err == nil {
		if src, err := ws.Files.ReadFile(st.Contract); err == nil && strings.Contains(string(src), "\n## Script") && !f.all {
			return nil // a script stage needs no model
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(o.BaseURL(), "/")+"/api/version", nil)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return &unreachableError{url: o.BaseURL(), err: err}
	}
	resp.Body.Close()
	return nil
}

// selfFor says how icm's own MCP servers run under this command: with the
// model server and model the run itself uses, so summarize and extract
// talk to the same place.
func selfFor(env *Env, ws *workspace.Workspace, client llm.Client, model string) toolbox.Self {
	e := toolbox.SelfEnv(env.Getenv, toolbox.KeyVars(ws.Config.Model)...)
	// icm's reader tools speak Ollama's API; point them at the run's
	// server only when that is an Ollama server.
	if o, ok := client.(*llm.Ollama); ok {
		e["OLLAMA_HOST"] = o.BaseURL()
	}
	if model == "" {
		model = ws.Config.Model.Name
	}
	if model != "" && e["ICM_MODEL"] == "" {
		e["ICM_MODEL"] = model
	}
	return toolbox.Self{Path: env.Self, Env: e}
}

// newModelClient builds the model client a workspace's config asks for.
func newModelClient(env *Env, ws *workspace.Workspace) (llm.Client, error) {
	return llm.FromConfig(ws.Config.Model, env.Getenv)
}

func runWorkspace(ctx context.Context, env *Env, ws *workspace.Workspace, f *runFlags) error {
	client, err := newModelClient(env, ws)
	if err != nil {
		return err
	}
	reg, problems := toolbox.Load(ws, selfFor(env, ws, client, f.model))
	for _, p := range problems {
		if p.Severity == tools.SeverityError {
			fmt.Fprintf(env.Stderr, "warning: %s\n", p)
		}
	}
	if err := probeModelServer(ctx, ws, client, f); err != nil {
		return err
	}
	pr := newPrinter(env, f)
	progress, flushTraces := withTracing(ctx, env, ws, pr.event)
	defer flushTraces()
	eng, err := workflow.New(ws, workflow.Options{
		Client:   client,
		Model:    f.model,
		Stage:    f.stage,
		Item:     f.item,
		Note:     f.note,
		All:      f.all,
		Force:    f.force,
		Gate:     f.gate,
		Tools:    toolbox.Opener(reg, tools.DefaultOptions(ws.Root, ws.Config)),
		Servers:  toolbox.Names(reg),
		Progress: progress,
		// code-blocks Verify checks run in this binary's sandbox.
		CodeBlocks: codeBlocks(),
	})
	if err != nil {
		return err
	}
	sum, err := eng.Run(ctx)
	pr.finish(ws, sum, err)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return errors.New("cancelled; the stage's finished work is kept and the next run resumes it")
		}
		return err
	}
	return nil
}

// printer turns run events into progress lines on stderr, or JSON lines.
type printer struct {
	env *Env
	f   *runFlags
	mu  sync.Mutex
}

func newPrinter(env *Env, f *runFlags) *printer { return &printer{env: env, f: f} }

func (p *printer) event(ev workflow.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f.asJSON {
		if ev.Kind != workflow.EventDelta {
			data, _ := json.Marshal(ev)
			fmt.Fprintln(p.env.Stdout, string(data))
		}
		return
	}
	if p.f.quiet {
		return
	}
	w := p.env.Stderr
	switch ev.Kind {
	case workflow.EventStageStart:
		fmt.Fprintf(w, "▶ %s: %s\n", ev.Stage, ev.Message)
	case workflow.EventItemStart:
		fmt.Fprintf(w, "  %s\n", ev.Message)
	case workflow.EventItemEnd:
		if strings.Contains(ev.Message, "kept from") {
			fmt.Fprintf(w, "  %s\n", ev.Message)
		}
	case workflow.EventModel:
		m := ev.Model
		if m.Err != "" {
			fmt.Fprintf(w, "    model %s failed: %s\n", m.Model, m.Err)
			return
		}
		rate := ""
		if m.Eval > 0 && m.OutputTokens > 0 {
			rate = fmt.Sprintf(", %.0f tok/s", float64(m.OutputTokens)/m.Eval.Seconds())
		}
		calls := ""
		if m.ToolCalls > 0 {
			calls = fmt.Sprintf(", %d tool call(s)", m.ToolCalls)
		}
		fmt.Fprintf(w, "    model %s: %d in, %d out, %s%s%s\n", m.Model, m.PromptTokens, m.OutputTokens, m.Duration.Round(10*time.Millisecond), rate, calls)
	case workflow.EventTool:
		t := ev.Tool
		args, _ := json.Marshal(t.Args)
		status := fmt.Sprintf("%s in %s", size(t.ResultSize), t.Duration.Round(10*time.Millisecond))
		if t.IsError || t.Err != "" {
			status = "error: " + firstLine(t.Err)
		}
		fmt.Fprintf(w, "    tool %s %s -> %s\n", t.Name, clip(string(args), 100), status)
	case workflow.EventScript:
		if ev.Message != "" {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(clip(ev.Message, 400), "\n", "\n    "))
		}
	case workflow.EventVerify:
		fmt.Fprintf(w, "  %s\n", ev.Message)
		for _, v := range ev.Verify {
			for _, f := range v.Findings {
				fmt.Fprintf(w, "    %s: %s\n", loc(f), f.Message)
			}
		}
	case workflow.EventStageEnd:
		if ev.Err != "" {
			fmt.Fprintf(w, "✗ %s %s\n", ev.Stage, ev.Message)
			return
		}
		fmt.Fprintf(w, "✓ %s %s (%s, %d tokens in, %d out)\n", ev.Stage, ev.Message, ev.Duration.Round(100*time.Millisecond), ev.PromptTokens, ev.OutputTokens)
	case workflow.EventGate:
		if ev.Status == string(state.Approved) {
			fmt.Fprintf(w, "  %s\n", ev.Message)
		}
	}
}

func (p *printer) finish(ws *workspace.Workspace, sum *workflow.Summary, err error) {
	if sum == nil {
		return
	}
	if p.f.asJSON {
		data, _ := json.Marshal(struct {
			Kind string `json:"kind"`
			*workflow.Summary
			Error string `json:"error,omitempty"`
		}{"summary", sum, errString(err)})
		fmt.Fprintln(p.env.Stdout, string(data))
		return
	}
	if err != nil {
		return
	}
	out := p.env.Stdout
	if len(sum.Ran) == 0 {
		fmt.Fprintf(out, "nothing to run: %s\n", sum.Next.Message)
		return
	}
	last := sum.Ran[len(sum.Ran)-1]
	if sum.Next.Action == state.ActionApprove {
		fmt.Fprintf(out, "Review gate: read %s, edit it if needed, then:\n  icm approve %s\n", strings.Join(displayAll(p.env, ws, outputsOf(sum, sum.Next.Stage, last)), ", "), sum.Next.Stage)
		return
	}
	fmt.Fprintf(out, "next: %s\n", sum.Next.Message)
}

func outputsOf(sum *workflow.Summary, stage string, fallback *workflow.StageResult) []string {
	for _, r := range sum.Ran {
		if r.Stage == stage {
			return r.Outputs
		}
	}
	return fallback.Outputs
}

func displayAll(env *Env, ws *workspace.Workspace, rels []string) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = displayPath(env, ws.Abs(r))
	}
	return out
}

func loc(f state.VerifyFinding) string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return clip(line, 160)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
