package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
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
that model call's whole request and its reply, from that run or, without
--run, from the latest run of the stage. --diff STAGE shows how a
stage's output changed between its last two versions; --diff STAGE --written
shows a person's edit: the output against what the model wrote.`,
		Example: "  icm history\n  icm history --run latest\n  icm history --run 20261130-1015\n  icm history --run 20261130-1015 --stage 02-research --call 3\n  icm history --diff 03-outline",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, err := openSession(env, g, session.Settings{})
			if err != nil {
				return err
			}
			defer sess.Close()
			switch {
			case diffStage != "" && written:
				d, err := sess.Reviews().EditDiff(diffStage)
				if err != nil {
					return err
				}
				printDiff(env, *d)
				return nil
			case diffStage != "":
				ds, err := sess.Reviews().OutputDiff(diffStage)
				if err != nil {
					return err
				}
				for _, d := range ds {
					printDiff(env, d)
				}
				return nil
			case call > 0:
				if runID == "" {
					// --stage S --call N alone reads the latest run of S.
					id, err := latestRunOf(sess, callStage)
					if err != nil {
						return err
					}
					runID = id
				}
				ex, err := sess.History().Exchange(runID, callStage, callItem, call)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(env, ex)
				}
				printExchange(env.Stdout, ex)
				return nil
			case runID != "":
				r, err := sess.History().Run(runID)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(env, struct {
						*report.RunSummary
						Events []report.Event    `json:"events"`
						Tree   []*report.RunNode `json:"tree"`
					}{r, r.Events, r.Tree})
				}
				printRunTree(env, r)
				return nil
			}
			runs, err := sess.History().Runs()
			if err != nil {
				return err
			}
			if asJSON {
				if runs == nil {
					runs = []*report.RunSummary{}
				}
				return writeJSON(env, runs)
			}
			if len(runs) == 0 {
				fmt.Fprintln(env.Stdout, "no runs yet")
				return nil
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			now := time.Now()
			for _, r := range runs {
				end := ""
				if r.Item > 0 {
					end = fmt.Sprintf("  (item %d of %s again)", r.Item, r.ItemStage)
				}
				fmt.Fprintf(tw, "run %s\t%s\t%s\t%s\t%s in\t%s out%s\n", r.ID, human.Time(r.Start.Local(), now), r.Status, human.Duration(r.Duration), human.Count(r.Prompt), human.Count(r.Output), end)
				for _, s := range r.Stages {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s in\t%s out\t%s, %s%s\n", s.Stage, s.Status, human.Duration(s.Duration), human.Count(s.Prompt), human.Count(s.Output), human.Plural(s.ModelCalls, "model call"), human.Plural(s.ToolCalls, "tool call"), items(s.Items))
					if s.Approval != nil {
						fmt.Fprintf(tw, "    %s\n", s.Approval.Words())
					}
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
	cmd.Flags().IntVar(&call, "call", 0, "with --stage (and --run, else the stage's latest run), print model call N's request and reply")
	cmd.Flags().StringVar(&callStage, "stage", "", "the stage of --call")
	cmd.Flags().IntVar(&callItem, "item", 0, "the For each item of --call")
	return cmd
}

// printExchange prints a model call's messages as a person reads them.
func printExchange(w io.Writer, ex *report.Exchange) {
	m := ex.Call
	fmt.Fprintf(w, "model call %d of %s", m.Call, ex.Stage)
	if ex.Item != "" {
		fmt.Fprintf(w, " (item %d: %s)", ex.Index, ex.Item)
	}
	fmt.Fprintf(w, ": %s, %s, %s\n", m.Model, human.InOut(m.PromptTokens, m.OutputTokens), human.Duration(m.Duration))
	if m.ReuseBasis != "" && m.Err == "" {
		fmt.Fprintf(w, "prefill: %s in %s (%s)\n", human.Prefill(m.PromptTokens, m.Reused, m.ReuseMeasured), human.Duration(m.PromptEval), m.ReuseBasis)
	}
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

func printMessage(w io.Writer, head string, msg report.Message) {
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
	return ", " + human.Plural(n, "item")
}

func printRunTree(env *Env, r *report.RunSummary) {
	w := env.Stdout
	fmt.Fprintf(w, "run %s  %s  %s  %s\n", r.ID, human.Moment(r.Start.Local(), time.Now()), human.Duration(r.Duration), human.InOut(r.Prompt, r.Output))
	printNodes(w, "", r.Tree)
	for _, s := range r.Stages {
		if s.Approval != nil {
			fmt.Fprintf(w, "%s %s\n", s.Stage, s.Approval.Words())
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if !r.Finished {
		fmt.Fprintln(w, "(the run stopped before it finished)")
	}
}

// printNodes draws nodes below a line whose children start with pad.
func printNodes(w io.Writer, pad string, nodes []*report.RunNode) {
	for j, n := range nodes {
		b, next := "├─", "│  "
		if j == len(nodes)-1 {
			b, next = "└─", "   "
		}
		text := n.Text
		if n.Kind == report.NodeModel && n.Call > 0 {
			// The number --call takes.
			text = fmt.Sprintf("call %d: %s", n.Call, text)
		}
		fmt.Fprintf(w, "%s%s %s\n", pad, b, text)
		printNodes(w, pad+next, n.Children)
	}
}

// printDiff prints one file's unified diff, or says it did not change.
func printDiff(env *Env, d session.FileDiff) {
	switch {
	case d.Gone:
		fmt.Fprintf(env.Stdout, "%s: no longer written\n", d.To)
	case d.Text == "":
		fmt.Fprintf(env.Stdout, "%s: %s\n", d.To, d.Same)
	default:
		fmt.Fprint(env.Stdout, d.Text)
	}
}

// latestRunOf is the id of the newest run that ran stage (any stage when
// stage is ""), for --call without --run.
func latestRunOf(sess *session.Session, stage string) (string, error) {
	runs, err := sess.History().Runs()
	if err != nil {
		return "", err
	}
	for i := len(runs) - 1; i >= 0; i-- {
		for _, s := range runs[i].Stages {
			if stage == "" || s.Stage == stage {
				return runs[i].ID, nil
			}
		}
	}
	if stage == "" {
		return "", fault.NotFound("no run has called a model yet", "icm run runs the next stage")
	}
	return "", fault.NotFound(fmt.Sprintf("no run has run %s yet", stage), fmt.Sprintf("icm run --stage %s runs it", stage))
}
