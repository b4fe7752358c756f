package cli

import (
	"fmt"
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
		var lines []string
		for _, ev := range r.Events {
			if ev.Stage != s.Stage {
				continue
			}
			prefix := ""
			if ev.Count > 0 {
				prefix = fmt.Sprintf("[%d/%d] ", ev.Index, ev.Count)
			}
			switch ev.Kind {
			case workflow.EventModel:
				m := ev.Model
				line := fmt.Sprintf("%smodel %s  %d in / %d out  %s", prefix, m.Model, m.PromptTokens, m.OutputTokens, m.Duration.Round(10*time.Millisecond))
				if m.DoneReason != "" && m.DoneReason != "stop" {
					line += "  (" + m.DoneReason + ")"
				}
				if m.Err != "" {
					line += "  error: " + firstLine(m.Err)
				}
				lines = append(lines, line)
			case workflow.EventTool:
				t := ev.Tool
				line := fmt.Sprintf("%stool %s  %s  %s", prefix, t.Name, size(t.ResultSize), t.Duration.Round(10*time.Millisecond))
				if t.IsError || t.Err != "" {
					line += "  error"
				}
				lines = append(lines, line)
			case workflow.EventVerify:
				lines = append(lines, ev.Message)
			}
		}
		for j, l := range lines {
			b := "├─"
			if j == len(lines)-1 {
				b = "└─"
			}
			fmt.Fprintf(w, "%s%s %s\n", pad, b, l)
		}
	}
	if !r.Finished {
		fmt.Fprintln(w, "(the run stopped before it finished)")
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
