package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/textdiff"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newHistoryCmd(env *Env, g *globalFlags) *cobra.Command {
	var runID, diffStage, callStage string
	var asJSON, written bool
	var call, callItem int
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Summarise past runs: time and tokens per stage",
		Long: `History reads the run traces in history/ and prints one block per run: each
stage it ran with its status, wall time, model calls, tool calls and tokens.
--run ID (or a unique prefix of it, or latest) prints one run as a tree of
its model calls, numbered, and tool calls; with --stage and --call N (and
--item for a For each stage, whose calls are numbered per item) it prints
that model call's whole request and its reply. --diff STAGE shows how a
stage's output changed between its last two versions; --diff STAGE --written
shows a person's edit: the output against what the model wrote.`,
		Example: "  icm history\n  icm history --run latest\n  icm history --run 20261130-1015\n  icm history --run 20261130-1015 --stage 02-research --call 3\n  icm history --diff 03-outline",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := openWorkspace(env, g)
			if err != nil {
				return err
			}
			switch {
			case diffStage != "" && written:
				return printWrittenDiff(env, ws, diffStage)
			case diffStage != "":
				return printDiff(env, ws, diffStage)
			case runID != "":
				r, err := workflow.Run(ws, runID)
				if err != nil {
					return err
				}
				if call > 0 {
					if err := needsItem(r, callStage, callItem, call); err != nil {
						return err
					}
					ex, err := workflow.FindExchange(r, callStage, callItem, call)
					if err != nil {
						return err
					}
					if asJSON {
						return writeJSON(env, ex)
					}
					printExchange(env.Stdout, ex)
					return nil
				}
				if asJSON {
					return writeJSON(env, struct {
						*workflow.RunSummary
						Events []workflow.Event    `json:"events"`
						Tree   []*workflow.RunNode `json:"tree"`
					}{r, r.Events, workflow.RunTree(r)})
				}
				printRunTree(env, r)
				return nil
			}
			runs, err := workflow.History(ws)
			if err != nil {
				return err
			}
			if asJSON {
				if runs == nil {
					runs = []*workflow.RunSummary{}
				}
				return writeJSON(env, runs)
			}
			if len(runs) == 0 {
				fmt.Fprintln(env.Stdout, "no runs yet")
				return nil
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			for _, r := range runs {
				end := ""
				if !r.Finished {
					end = "  (stopped early)"
				}
				fmt.Fprintf(tw, "run %s\t%s\t%s\t%d in\t%d out%s\n", r.ID, r.Start.Local().Format("2006-01-02 15:04"), r.Duration.Round(100*time.Millisecond), r.Prompt, r.Output, end)
				for _, s := range r.Stages {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%d in\t%d out\t%d model, %d tool calls%s\n", s.Stage, s.Status, s.Duration.Round(100*time.Millisecond), s.Prompt, s.Output, s.ModelCalls, s.ToolCalls, items(s.Items))
				}
				for _, n := range r.Notes {
					fmt.Fprintf(tw, "  note: %s\n", n)
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&runID, "run", "", "print one run (id or unique prefix) as a tree")
	cmd.Flags().StringVar(&diffStage, "diff", "", "show how STAGE's output changed between its last two versions")
	cmd.Flags().BoolVar(&written, "written", false, "with --diff, compare the output with what the model wrote (a person's edit)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().IntVar(&call, "call", 0, "with --run and --stage, print model call N's request and reply")
	cmd.Flags().StringVar(&callStage, "stage", "", "the stage of --call")
	cmd.Flags().IntVar(&callItem, "item", 0, "the For each item of --call")
	return cmd
}

// printExchange prints a model call's messages as a person reads them.
func printExchange(w io.Writer, ex *workflow.Exchange) {
	m := ex.Call
	fmt.Fprintf(w, "model call %d of %s", m.Call, ex.Stage)
	if ex.Item != "" {
		fmt.Fprintf(w, " (item %d: %s)", ex.Index, ex.Item)
	}
	fmt.Fprintf(w, ": %s, %d in / %d out, %s\n", m.Model, m.PromptTokens, m.OutputTokens, m.Duration.Round(10*time.Millisecond))
	if len(m.Tools) > 0 {
		fmt.Fprintf(w, "tools offered: %s\n", strings.Join(m.Tools, ", "))
	}
	for i, msg := range ex.Request {
		printMessage(w, fmt.Sprintf("request %d: %s", i+1, msg.Role), msg)
	}
	switch {
	case m.Reply != nil:
		printMessage(w, "reply", *m.Reply)
	case m.Err != "":
		fmt.Fprintf(w, "\n== reply\nthe call failed: %s\n", m.Err)
	}
}

func printMessage(w io.Writer, head string, msg llm.Message) {
	if msg.ToolName != "" {
		head += " (" + msg.ToolName + ")"
	}
	fmt.Fprintf(w, "\n== %s\n", head)
	if msg.Content != "" {
		fmt.Fprintln(w, strings.TrimRight(msg.Content, "\n"))
	}
	for _, c := range msg.ToolCalls {
		args, _ := json.Marshal(c.Arguments)
		fmt.Fprintf(w, "-> call %s %s\n", c.Name, args)
	}
}

func items(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d items", n)
}

func printRunTree(env *Env, r *workflow.RunSummary) {
	w := env.Stdout
	fmt.Fprintf(w, "run %s  %s  %s  %d in / %d out\n", r.ID, r.Start.Local().Format("2006-01-02 15:04:05"), r.Duration.Round(10*time.Millisecond), r.Prompt, r.Output)
	printNodes(w, "", workflow.RunTree(r))
	if !r.Finished {
		fmt.Fprintln(w, "(the run stopped before it finished)")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// needsItem refuses --call without --item for a stage that ran For each
// items: their calls are numbered per item, so "call 1" means nothing
// until the item is named.
func needsItem(r *workflow.RunSummary, stage string, item, call int) error {
	if item > 0 {
		return nil
	}
	items := 0
	for _, ev := range r.Events {
		if ev.Kind == workflow.EventModel && ev.Stage == stage && ev.Index > items {
			items = ev.Index
		}
	}
	if items == 0 {
		return nil
	}
	return fmt.Errorf("%s ran one model loop per For each item (1 to %d), each with its own calls: add --item N to say which item's call %d", stage, items, call)
}

// printNodes draws nodes below a line whose children start with pad.
func printNodes(w io.Writer, pad string, nodes []*workflow.RunNode) {
	for j, n := range nodes {
		b, next := "├─", "│  "
		if j == len(nodes)-1 {
			b, next = "└─", "   "
		}
		text := n.Text
		if n.Kind == workflow.NodeModel && n.Call > 0 {
			// The number --call takes.
			text = fmt.Sprintf("call %d: %s", n.Call, text)
		}
		fmt.Fprintf(w, "%s%s %s\n", pad, b, text)
		printNodes(w, pad+next, n.Children)
	}
}

// printDiff shows the change between a stage's current output and its
// newest kept version (or between the two newest kept versions when the
// output is gone).
func printDiff(env *Env, ws *workspace.Workspace, stage string) error {
	st, err := ws.Stage(stage)
	if err != nil {
		return err
	}
	versions, err := workflow.Versions(ws, st.Name)
	if err != nil {
		return err
	}
	if len(versions) == 0 {
		return fmt.Errorf("stage %s has no earlier version kept in %s; it has run at most once", st.Name, ws.Rel(workflow.VersionsDir(ws, st.Name)))
	}
	prev := versions[0]
	for _, name := range prev.Names() {
		cur := filepath.Join(st.Dir, workspace.OutputDir, name)
		a, _ := ws.Disk.ReadFile(prev.Files[name])
		b, err := ws.Disk.ReadFile(cur)
		if err != nil {
			fmt.Fprintf(env.Stdout, "%s: no longer written\n", ws.Rel(cur))
			continue
		}
		if err := printUnified(env, a, b, ws.Rel(prev.Files[name]), ws.Rel(cur), "unchanged since "+prev.Label); err != nil {
			return err
		}
	}
	return nil
}

// printUnified prints the unified diff from a (named from) to b (named
// to), or "TO: same" when they do not differ. The diff is linear in the
// files' size (package textdiff), so any two files under the read cap get
// one.
func printUnified(env *Env, a, b []byte, from, to, same string) error {
	changed, err := textdiff.Unified(env.Stdout, string(a), string(b), from, to, 3)
	if err != nil {
		return err
	}
	if !changed {
		fmt.Fprintf(env.Stdout, "%s: %s\n", to, same)
	}
	return nil
}

// printWrittenDiff shows how a stage's output differs from what the model
// last wrote: the person's edit.
func printWrittenDiff(env *Env, ws *workspace.Workspace, stage string) error {
	st, err := ws.Stage(stage)
	if err != nil {
		return err
	}
	w, err := workflow.ReadWritten(ws, st)
	if err != nil {
		return err
	}
	if w == nil {
		return fmt.Errorf("stage %s has no model's version kept: it last ran before icm kept one; run it again", st.Name)
	}
	model := workflow.ModelVersionPath(ws, st, w.Output)
	a, err := ws.Disk.ReadFile(model)
	if err != nil {
		return fmt.Errorf("unable to read the model's version of %s: %w", w.Output, err)
	}
	b, err := ws.Disk.ReadFile(ws.Abs(w.Output))
	if err != nil {
		return fmt.Errorf("unable to read %s: %w", w.Output, err)
	}
	return printUnified(env, a, b, w.Output+" (the model's version)", w.Output, "as the model wrote it")
}
