package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newHistoryCmd(env *Env, g *globalFlags) *cobra.Command {
	var runID, diffStage string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Summarise past runs: time and tokens per stage",
		Long: `History reads the run traces in history/ and prints one block per run: each
stage it ran with its status, wall time, model calls, tool calls and tokens.
--run ID prints one run as a tree of its model and tool calls; --diff STAGE
shows how a stage's output changed between its last two versions.`,
		Example: "  icm history\n  icm history --run 20261130-1015\n  icm history --diff 03-outline",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := openWorkspace(env, g)
			if err != nil {
				return err
			}
			switch {
			case diffStage != "":
				return printDiff(env, ws, diffStage)
			case runID != "":
				r, err := workflow.Run(ws, runID)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(env, struct {
						*workflow.RunSummary
						Events []workflow.Event `json:"events"`
					}{r, r.Events})
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
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&runID, "run", "", "print one run (id or unique prefix) as a tree")
	cmd.Flags().StringVar(&diffStage, "diff", "", "show how STAGE's output changed between its last two versions")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
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
	for i, s := range r.Stages {
		last := i == len(r.Stages)-1
		branch, pad := "├─", "│  "
		if last {
			branch, pad = "└─", "   "
		}
		fmt.Fprintf(w, "%s %s  %s  %s  %d in / %d out\n", branch, s.Stage, s.Status, s.Duration.Round(10*time.Millisecond), s.Prompt, s.Output)
		printNodes(w, pad, stageNodes(r.Events, s.Stage))
	}
	if !r.Finished {
		fmt.Fprintln(w, "(the run stopped before it finished)")
	}
}

// treeNode is one line of a run tree and the lines under it.
type treeNode struct {
	line     string
	children []*treeNode
	// For each items add up their calls as they are read.
	start, end    time.Time
	prompt, out   int
	title, prefix string
}

// stageNodes turns a stage's events into tree nodes: model calls, tool
// calls and Verify results, with a For each item's calls under the item
// (its wall time and tokens on its own line).
func stageNodes(events []workflow.Event, stage string) []*treeNode {
	var nodes []*treeNode
	items := map[int]*treeNode{}
	itemOf := func(ev workflow.Event) *treeNode {
		it, ok := items[ev.Index]
		if !ok {
			it = &treeNode{title: ev.Item, prefix: fmt.Sprintf("[%d/%d]", ev.Index, ev.Count), start: ev.Time}
			items[ev.Index] = it
			nodes = append(nodes, it)
		}
		return it
	}
	for _, ev := range events {
		if ev.Stage != stage {
			continue
		}
		var leaf *treeNode
		switch ev.Kind {
		case workflow.EventItemStart:
			itemOf(ev).start = ev.Time
		case workflow.EventItemEnd:
			it := itemOf(ev)
			it.end = ev.Time
			if strings.Contains(ev.Message, "kept from") {
				it.title += "  (kept from an interrupted run)"
			}
		case workflow.EventModel:
			m := ev.Model
			line := fmt.Sprintf("model %s  %d in / %d out  %s", m.Model, m.PromptTokens, m.OutputTokens, m.Duration.Round(10*time.Millisecond))
			if m.DoneReason != "" && m.DoneReason != "stop" {
				line += "  (" + m.DoneReason + ")"
			}
			if m.Err != "" {
				line += "  error: " + firstLine(m.Err)
			}
			leaf = &treeNode{line: line}
			if ev.Count > 0 {
				it := itemOf(ev)
				it.prompt += m.PromptTokens
				it.out += m.OutputTokens
			}
		case workflow.EventTool:
			t := ev.Tool
			line := fmt.Sprintf("tool %s  %s  %s", t.Name, size(t.ResultSize), t.Duration.Round(10*time.Millisecond))
			if t.IsError || t.Err != "" {
				line += "  error"
			}
			leaf = &treeNode{line: line}
		case workflow.EventVerify:
			leaf = &treeNode{line: ev.Message}
		}
		if leaf == nil {
			continue
		}
		if ev.Count > 0 {
			it := itemOf(ev)
			it.children = append(it.children, leaf)
		} else {
			nodes = append(nodes, leaf)
		}
	}
	for _, n := range nodes {
		if n.prefix == "" {
			continue
		}
		took := "unfinished"
		if !n.end.IsZero() {
			took = n.end.Sub(n.start).Round(10 * time.Millisecond).String()
		}
		n.line = fmt.Sprintf("%s %s  %s  %d in / %d out", n.prefix, n.title, took, n.prompt, n.out)
	}
	return nodes
}

// printNodes draws nodes below a line whose children start with pad.
func printNodes(w io.Writer, pad string, nodes []*treeNode) {
	for j, n := range nodes {
		b, next := "├─", "│  "
		if j == len(nodes)-1 {
			b, next = "└─", "   "
		}
		fmt.Fprintf(w, "%s%s %s\n", pad, b, n.line)
		printNodes(w, pad+next, n.children)
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
	names := make([]string, 0, len(prev.Files))
	for n := range prev.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		cur := filepath.Join(st.Dir, workspace.OutputDir, name)
		a, _ := os.ReadFile(prev.Files[name])
		b, err := os.ReadFile(cur)
		if err != nil {
			fmt.Fprintf(env.Stdout, "%s: no longer written\n", ws.Rel(cur))
			continue
		}
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(string(a)), B: difflib.SplitLines(string(b)),
			FromFile: ws.Rel(prev.Files[name]), ToFile: ws.Rel(cur), Context: 3,
		})
		if err != nil {
			return err
		}
		if strings.TrimSpace(d) == "" {
			fmt.Fprintf(env.Stdout, "%s: unchanged since %s\n", ws.Rel(cur), prev.Label)
			continue
		}
		fmt.Fprint(env.Stdout, d)
	}
	return nil
}
