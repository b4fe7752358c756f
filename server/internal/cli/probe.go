package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func newProbeCmd(env *Env, g *globalFlags) *cobra.Command {
	var asJSON, tableOnly bool
	var item int
	cmd := &cobra.Command{
		Use:   "probe STAGE",
		Short: "Show the exact context a stage would send to the model, with token counts",
		Long: `Probe assembles a stage's context the way a run would (system text: identity,
routing and reference inputs; user text: the Process and working inputs) and
prints it with a token count per part. It never calls a model. Inputs that an
earlier stage has not produced yet are marked. For a For each stage, --item N
shows the context of item N.`,
		Example: "  icm probe 01-scope\n  icm probe 04-draft --item 2\n  icm probe 02-research --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := openWorkspace(env, g)
			if err != nil {
				return err
			}
			st, err := ws.Stage(args[0])
			if err != nil {
				return err
			}
			ctx, items, err := probeStage(ws, st, item)
			if err != nil {
				return err
			}
			count := probeCount(cmd.Context(), env, ws, st, item)
			if asJSON {
				return writeJSON(env, struct {
					*assemble.Context
					Count *promptcount.Stage `json:"count,omitempty"`
				}{ctx, count})
			}
			if !tableOnly {
				fmt.Fprintf(env.Stdout, "=== system (%d tokens) ===\n%s\n=== user (%d tokens) ===\n%s\n", ctx.SystemTokens, ctx.System, ctx.UserTokens, ctx.User)
			}
			printParts(env, st, ctx, items)
			if count != nil {
				fmt.Fprintf(env.Stdout, "first call as the server will see it: %d tokens, %s", count.First.Tokens, count.First.Label())
				if count.First.Tokenizer != "" {
					fmt.Fprintf(env.Stdout, " (%s)", count.First.Tokenizer)
				}
				fmt.Fprintln(env.Stdout)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the assembled context and its parts as JSON")
	cmd.Flags().BoolVar(&tableOnly, "tokens", false, "print only the token table")
	cmd.Flags().IntVar(&item, "item", 0, "for a For each stage, assemble item N (1-based)")
	return cmd
}

// probeStage assembles one stage for display, with missing inputs marked.
// It returns the number of For each items (-1 when not a For each stage).
func probeStage(ws *workspace.Workspace, st *workspace.Stage, item int) (*assemble.Context, int, error) {
	rep := check.Run(ws, check.Options{Servers: serverNames(ws)})
	sr := rep.Stage(st.Name)
	if sr == nil || sr.Contract == nil {
		return nil, -1, fmt.Errorf("stage %s has no readable %s", st.Name, workspace.ContractFile)
	}
	opts := assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy}
	if item > 0 {
		if err := assemble.SelectItem(ws, st, sr.Contract, item, &opts); err != nil {
			return nil, -1, err
		}
	}
	ctx, err := assemble.Stage(ws, st, sr.Contract, opts)
	if err != nil {
		return nil, -1, err
	}
	return ctx, sr.Items, nil
}

// probeCount counts the stage's first calls as the run would send them:
// exact with the model's own files when they are here, else estimated
// (tool definitions are not listed by the probe). nil when the stage
// cannot be counted; the table above still says what is known.
func probeCount(ctx context.Context, env *Env, ws *workspace.Workspace, st *workspace.Stage, item int) *promptcount.Stage {
	rep := check.Run(ws, check.Options{Servers: serverNames(ws)})
	sr := rep.Stage(st.Name)
	if sr == nil || sr.Contract == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	client, err := newModelClient(env, ws)
	if err != nil {
		client = nil
	}
	k := sr.Contract
	opts := assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy}
	if item > 0 {
		if err := assemble.SelectItem(ws, st, k, item, &opts); err != nil {
			return nil
		}
		plain := *k
		plain.ForEach = nil
		k = &plain
	}
	counter := &promptcount.Counter{Client: client}
	n, err := counter.Stage(ctx, ws, st, k, opts, promptcount.Call{Model: ws.Config.Model.Name, Think: ws.Config.Model.Think})
	if err != nil {
		return nil
	}
	return n
}

func printParts(env *Env, st *workspace.Stage, ctx *assemble.Context, items int) {
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "part\tlayer\trole\ttokens\t\n")
	for _, p := range ctx.Parts {
		label := p.Label
		if n := p.Note(); n != "" {
			label += " (" + n + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t\n", label, p.LayerName(), p.Role, p.Tokens)
	}
	fmt.Fprintf(tw, "headings and framing\t\t\t%d\t\n", ctx.Framing())
	fmt.Fprintf(tw, "total\t\t\t%d\t\n", ctx.Total)
	tw.Flush()
	note := fmt.Sprintf("stage %s: ~%d tokens (system %d, user %d), estimated with %s", st.Name, ctx.Total, ctx.SystemTokens, ctx.UserTokens, ctx.Estimator)
	if items >= 0 {
		note += fmt.Sprintf("; For each runs %d items (--item N shows one)", items)
	}
	fmt.Fprintln(env.Stdout, strings.TrimSpace(note))
}
