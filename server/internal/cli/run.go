package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

type runFlags struct {
	all, force, quiet, asJSON bool
	adopt, regenerate         bool
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
it runs that one stage and stops at its gate; when an earlier stage whose
output it reads is not approved, it asks at a terminal whether to run on
that output anyway, and elsewhere refuses, naming the stage to approve (or
to run) first. A stage refused before it begins keeps its state. An output
a person edited and did not approve is never overwritten without --force
(the previous version is kept in history/versions/ either way).

With --stage and --item N, a For each stage runs only its Nth item again
(optionally with --note, feedback for that one call) and only that item's
section of the output is replaced: a person's edits in the other sections
stay. The stage then needs approving again, as a whole.

Outputs committed with the workspace (there before any run of icm, the
author's own result) are not a person's edit: the first run in such a
workspace asks once whether to keep them as approved or to regenerate
them (the committed files are kept in history/versions/). --adopt and
--regenerate give the answer without asking; with --adopt, a run for one
stage whose outputs were adopted leaves them as they are.

--model runs with another model this once. It is a fact of the run, not
a change of settings: the run record keeps the model it ran with and the
configured model it stood in for, a plain ` + "`icm approve`" + ` approves the
output, and the stage stays approved until the configured model itself
changes (config.toml, the contract's ## Model, the editor's icm.model).`,
		Example: "  icm run\n  icm run --all\n  icm run --stage 02-research --model llama3.1:8b\n  icm run --stage 04-draft --item 3 --note \"shorter, and name the port\"",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.note != "" && f.item == 0 {
				return fault.InvalidRequest("--note is feedback for one item", "give the item with --item N (and its stage with --stage)")
			}
			if f.adopt && f.regenerate {
				return fault.InvalidRequest("--adopt and --regenerate are two answers to one question", "give one of them")
			}
			return runWorkspace(cmd.Context(), env, g, f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.all, "all", false, "run every stage that needs it, without stopping at gates")
	fl.StringVar(&f.stage, "stage", "", "run this stage only (even when approved)")
	fl.IntVar(&f.item, "item", 0, "with --stage, run only this For each item (1-based) again, keeping the rest of the output")
	fl.StringVar(&f.note, "note", "", "with --item, feedback for that item's call (what to change)")
	fl.BoolVar(&f.force, "force", false, "overwrite outputs edited and not approved")
	fl.BoolVar(&f.adopt, "adopt", false, "keep outputs committed with the workspace (not made by icm) as approved, recorded as adopted")
	fl.BoolVar(&f.regenerate, "regenerate", false, "regenerate outputs committed with the workspace (not made by icm); they are kept in history")
	fl.StringVar(&f.model, "model", "", "use this model for this run only, instead of the configured one (the stages stay judged by the configured model)")
	fl.StringVar(&f.gate, "gate", "", `gate mode for this run: "explicit" or "rerun" (running again approves)`)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only the result")
	fl.BoolVar(&f.asJSON, "json", false, "print events and the summary as JSON lines")
	return cmd
}

func runWorkspace(ctx context.Context, env *Env, g *globalFlags, f *runFlags) error {
	g.command = "run"
	open := func() (*session.Session, error) {
		return openSession(env, g, session.Settings{Gate: f.gate})
	}
	sess, err := open()
	if err != nil {
		return err
	}
	if sess, err = trusted(env, sess, "run its stages", "icm run", open); err != nil {
		sess.Close()
		return err
	}
	defer sess.Close()
	// The commands an error suggests (run it again) repeat the override.
	g.model = f.model
	pr := newPrinter(env, f)
	req := session.RunRequest{Stage: f.stage, Item: f.item, Note: f.note, All: f.all, Force: f.force, Model: f.model, Committed: f.committed()}
	sum, err := execute(ctx, sess, req, pr)
	if fault.KindOf(err) == fault.KindUnapproved && env.Interactive {
		// At a terminal the person may run it on the unapproved output;
		// elsewhere the refusal stands, naming the stage to approve.
		if askYes(env, fmt.Sprintf("%s.\nRun %s on it anyway? [y/N] ", fault.From(err).Msg, f.stage)) {
			req.PastGate = true
			sum, err = execute(ctx, sess, req, pr)
		}
	}
	if answer := askCommitted(env, f, err); answer != "" {
		// Asked once, at a terminal: the run goes on with the answer.
		req.Committed = answer
		sum, err = execute(ctx, sess, req, pr)
	}
	pr.finish(sess.Workspace(), sum, err, g)
	if err == nil && !f.asJSON {
		printGateWrites(env, sess, sum, g)
	}
	return err
}

// execute prepares and runs one run.
func execute(ctx context.Context, sess *session.Session, req session.RunRequest, pr *printer) (*report.Summary, error) {
	run, err := sess.Runs().New(req, pr.event)
	if err != nil {
		return nil, err
	}
	return run.Execute(ctx)
}

// committed is the answer the flags give to the question about outputs
// committed with the workspace ("" when they give none).
func (f *runFlags) committed() string {
	switch {
	case f.adopt:
		return state.KeepCommitted
	case f.regenerate:
		return state.RegenerateCommitted
	}
	return ""
}
