package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newProbeCmd(env *Env, g *globalFlags) *cobra.Command {
	var asJSON, tableOnly bool
	var item int
	var model string
	cmd := &cobra.Command{
		Use:   "probe STAGE",
		Short: "Show the exact context a stage would send to the model, with token counts",
		Long: `Probe assembles a stage's context the way a run would (system text: identity,
routing and reference inputs; user text: the Process and working inputs) and
prints it with a token count per part. It never calls a model. Inputs that an
earlier stage has not produced yet are marked. For a For each stage, --item N
shows the context of item N. --model counts for that model, as a run with
icm run --model would send it.`,
		Example: "  icm probe 01-scope\n  icm probe 04-draft --item 2\n  icm probe 02-research --json\n  icm probe 01-scope --model llama3.1:8b",
		Args:    stageArg(env, g),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Probing judges no state, so the model is simply the one to
			// count for.
			sess, err := openSession(env, g, session.Settings{Model: model})
			if err != nil {
				return err
			}
			defer sess.Close()
			pr, err := sess.Probe(nil, args[0], item)
			if err != nil {
				return err
			}
			st, ctx, items, rep := pr.Stage, pr.Context, pr.Items, pr.Report
			count := sess.Counts().Probe(cmd.Context(), pr)
			if asJSON {
				// The same bytes as the workspace MCP server's context
				// resource.
				data, err := pr.Document(count).JSON()
				if err != nil {
					return err
				}
				if _, err := env.Stdout.Write(data); err != nil {
					return fmt.Errorf("unable to write JSON: %w", err)
				}
			} else {
				if !tableOnly {
					fmt.Fprintf(env.Stdout, "=== system (%d tokens) ===\n%s\n=== user (%d tokens) ===\n%s\n", ctx.SystemTokens, ctx.System, ctx.UserTokens, ctx.User)
				}
				printParts(env, st, ctx, items, count)
				if count != nil {
					printCount(env, count)
				}
			}
			return stageErrors(env, rep, st)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the assembled context and its parts as JSON")
	cmd.Flags().BoolVar(&tableOnly, "tokens", false, "print only the token table")
	cmd.Flags().IntVar(&item, "item", 0, "for a For each stage, assemble item N (1-based)")
	cmd.Flags().StringVar(&model, "model", "", "count for this model instead of the configured one (as icm run --model would send it)")
	return cmd
}

// stageErrors prints every error check found in a stage's contract, each
// with its file:line:col, and fails when there is any: the context shown
// is not one a run would send.
func stageErrors(env *Env, rep *check.Report, st *workspace.Stage) error {
	var errs []contract.Finding
	for _, f := range rep.FindingsFor(st.Contract) {
		if f.Severity == contract.Error {
			errs = append(errs, f)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	for _, l := range locate(env, rep, errs) {
		fmt.Fprintf(env.Stderr, "%s:%d:%d: %s: %s [%s]\n", l.Path, l.Line, l.Column, l.Severity.Word(), l.Message, l.Code)
	}
	fmt.Fprintf(env.Stderr, "stage %s cannot run as it is: %s (icm check lists them)\n", st.Name, plural(len(errs), "error"))
	return &ExitError{Code: 1}
}

// printCount adds to the table what its rows do not say: which tokenizer
// made an exact count, the tool servers the count had to leave out, and
// the whole of a For each stage.
func printCount(env *Env, n *promptcount.Stage) {
	if n.Model != "" {
		fmt.Fprintf(env.Stdout, "counted for %s\n", n.Model)
	}
	if d := n.First.Describe(); d != n.First.Label() {
		fmt.Fprintf(env.Stdout, "counted %s\n", d)
	}
	for _, why := range n.ToolsLeftOut {
		fmt.Fprintf(env.Stdout, "counted without the tool definitions of %s\n", why)
	}
	if len(n.Items) > 1 {
		fmt.Fprintf(env.Stdout, "the whole stage: %s in %d first calls, one per item\n", countText(n.Total), len(n.Items))
		printShared(env, n)
	}
}

// printShared says, per item, how much of its first call it shares with
// an earlier item's and how much is its own, and what the stage's first
// calls cost a server that keeps the shared start against one that
// computes every call whole.
func printShared(env *Env, n *promptcount.Stage) {
	approx := ""
	if n.Items[0].Count.Method != tokens.Exact {
		approx = "~"
	}
	rows := [][4]string{{"item", "tokens", "shared", "own"}}
	least := 0
	for i, it := range n.Items {
		rows = append(rows, [4]string{fmt.Sprintf("%d. %s", i+1, it.Title), approx + human.Count(it.Count.Tokens), approx + human.Count(it.Shared), approx + human.Count(it.Own)})
		least += it.Own
	}
	w := [4]int{}
	for _, r := range rows {
		for i, c := range r {
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		fmt.Fprintf(env.Stdout, "  %-*s  %*s  %*s  %*s\n", w[0], r[0], w[1], r[1], w[2], r[2], w[3], r[3])
	}
	fmt.Fprintf(env.Stdout, "prefill: at the least %s%s tokens, where the server keeps the shared start (one item first, then the rest); %s%s where it computes each call whole\n",
		approx, human.Count(least), approx, human.Count(n.Total.Tokens))
}

// countText is "1300 tokens, exact (model tokenizer: BPE qwen2, 151669 tokens)".
func countText(c tokens.Count) string {
	return fmt.Sprintf("%d tokens, %s", c.Tokens, c.Describe())
}

func printParts(env *Env, st *workspace.Stage, ctx *assemble.Context, items int, count *promptcount.Stage) {
	rows := [][5]string{{"part", "layer", "role", "tokens", ""}}
	for _, p := range ctx.Parts {
		note := p.Note()
		if p.Base != "" && p.Base != string(workspace.BaseStage) {
			// Which base the path was found under, when it is not the
			// stage folder it is written from.
			note = strings.TrimPrefix(note+"; from the "+p.Base, "; ")
		}
		rows = append(rows, [5]string{p.Label, p.LayerName(), p.Role, strconv.Itoa(p.Tokens), note})
	}
	rows = append(rows, [5]string{"headings and framing", "", "", strconv.Itoa(ctx.Framing()), ""})
	rows = append(rows, [5]string{"total", "", "", strconv.Itoa(ctx.Total), ""})
	if count != nil {
		// What the server sees besides the context: the tool definitions
		// and the chat template's own tokens.
		if count.ToolDefs > 0 {
			rows = append(rows, [5]string{fmt.Sprintf("tool definitions (%d tools, %s)", count.ToolDefs, count.First.Label()), "tools", "system", strconv.Itoa(count.Tools), ""})
		}
		rows = append(rows, [5]string{fmt.Sprintf("first call as the server sees it (%s)", count.First.Label()), "", "", strconv.Itoa(count.First.Tokens), ""})
	}
	printTable(env.Stdout, rows)
	note := fmt.Sprintf("stage %s: %s (system %s, user %s), estimated with %s", st.Name, human.Estimate(ctx.Total), human.Count(ctx.SystemTokens), human.Count(ctx.UserTokens), ctx.Estimator)
	if items >= 0 {
		note += fmt.Sprintf("; For each runs %d items (--item N shows one)", items)
	}
	fmt.Fprintln(env.Stdout, strings.TrimSpace(note))
}

// printTable prints the token table: the part names left-aligned, the
// numbers right-aligned, and a part's note (why it is not loaded) ending
// its own row, so one long note does not widen every other row.
func printTable(w io.Writer, rows [][5]string) {
	var width [4]int
	for _, r := range rows {
		for c := 0; c < 4; c++ {
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	for _, r := range rows {
		line := pad(r[0], width[0], false) + "  " + pad(r[1], width[1], true) + "  " + pad(r[2], width[2], false) + "  " + pad(r[3], width[3], true)
		if r[4] != "" {
			line += "  " + r[4]
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// pad fills s with spaces to n columns, on the left when right is set.
func pad(s string, n int, right bool) string {
	fill := strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
	if right {
		return fill + s
	}
	return s + fill
}
