package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/demo"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

func newDemoCmd(env *Env) *cobra.Command {
	var yes bool
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the sample pipeline end to end with canned answers: no model needed",
		Long: `Demo copies the sample workspace course-research into a new folder and runs
its four stages the way icm run does, stopping at each review gate to ask
you, as a real run would. No model runs: a scripted stand-in for Ollama on
127.0.0.1 answers every call with text written in advance for the demo,
and a fake search backend and a fixture site stand in for the web (the
copy's page reader may read that one site; for every other workspace it
refuses private addresses as always). The sample itself is never written.

At each gate read the output (edit it if you like), then answer y to
approve it and go on, or n to stop there. --yes approves at every gate.
The temporary copy and its trust record go when the demo ends; with --dir
the copy stays for you to read (its trust record still goes, with the
stand-ins it trusted).`,
		Example: "  icm demo\n  icm demo --yes\n  icm demo --dir /tmp/my-demo",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), env, dir, yes)
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve at every gate without asking")
	cmd.Flags().StringVar(&dir, "dir", "", "copy the sample into this new or empty folder (default: a new temporary folder)")
	return cmd
}

func runDemo(ctx context.Context, env *Env, dir string, yes bool) error {
	d, err := demo.Start(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	out := env.Stdout
	fmt.Fprintf(out, `icm demo: the sample workspace course-research, run end to end with canned answers.
  No model runs here: a scripted stand-in for Ollama at %s answers every call with
  text written in advance for this demo. A fake search backend and a fixture site stand
  in for the web, and only this copy's page reader may read that site.
  The copy is %s (the sample itself is not written). icm trusts this copy
  to start its search and reader servers while the demo runs: it is icm's own demo.

`, d.ModelURL(), d.Dir)
	g := &globalFlags{workspace: d.Dir}
	sess, err := openSession(env, g, session.Settings{})
	if err != nil {
		return err
	}
	defer sess.Close()
	stages := len(sess.Workspace().Stages)
	answers := bufio.NewReader(env.Stdin)
	start := time.Now()
	for gate := 1; ; gate++ {
		pr := newPrinter(env, &runFlags{})
		run, err := sess.Runs().New(session.RunRequest{}, pr.event)
		if err != nil {
			return err
		}
		sum, err := run.Execute(ctx)
		if err != nil {
			return err
		}
		switch sum.Next.Action {
		case state.ActionDone:
			fmt.Fprintf(out, "Done: all %d stages ran and are approved, in %s, with %s to the canned model (the page reader's summaries included).\n", stages,
				human.Duration(time.Since(start)), plural(d.Calls(), "call"))
			if d.Temporary() {
				fmt.Fprintln(out, "The temporary copy goes with the demo: `icm demo --dir DIR` keeps one to read (the drafted course is its pipeline/04-draft/output/draft.md).")
			} else {
				fmt.Fprintf(out, "Read the drafted course: %s\n", filepath.Join(d.Dir, "pipeline", "04-draft", "output", "draft.md"))
			}
			fmt.Fprintf(out, "With a real model: install Ollama (%s), start it (ollama serve), `icm pull qwen3.5:9b`, then `make run` in a clone (or `icm run -w DIR` on a workspace).\n", session.OllamaDownload)
			return nil
		case state.ActionApprove:
		default:
			return fmt.Errorf("the demo stopped before its gates: %s", sum.Next.Message)
		}
		stage := sum.Next.Stage
		files := displayAll(env, sess.Workspace(), outputsOf(sum, stage, sum.Ran[len(sum.Ran)-1]))
		wait := " (edit it if you like; the demo waits)"
		if yes {
			wait = " (--yes approves it at once)"
		}
		fmt.Fprintf(out, "\nGate %d of %d: read %s%s.\n", gate, stages, strings.Join(files, ", "), wait)
		ok, err := askApprove(out, answers, stage, yes, gate == stages)
		if err != nil {
			return err
		}
		if !ok {
			if d.Temporary() {
				fmt.Fprintf(out, "Stopped at %s's gate. The temporary copy goes with the demo (`icm demo --dir DIR` keeps one); `icm demo` again starts afresh.\n", stage)
			} else {
				fmt.Fprintf(out, "Stopped at %s's gate. The copy stays at %s; the canned servers stop with the demo, so `icm demo` again starts afresh.\n", stage, d.Dir)
			}
			return nil
		}
		if _, err := sess.Reviews().Approve(ctx, stage, session.ApproveRequest{}); err != nil {
			return err
		}
		fmt.Fprintf(out, "approved %s\n\n", stage)
	}
}

// askApprove asks whether to approve stage and go on (at the last gate,
// to finish): an empty answer or y is yes, n is no; with yes set it
// answers itself. The end of the input is no, with why.
func askApprove(out io.Writer, in *bufio.Reader, stage string, yes, last bool) (bool, error) {
	question := "Approve %s and go on? [Y/n] "
	if last {
		question = "Approve %s and finish? [Y/n] "
	}
	for {
		fmt.Fprintf(out, question, stage)
		if yes {
			fmt.Fprintln(out, "y (--yes)")
			return true, nil
		}
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
			if errors.Is(err, io.EOF) && line == "" {
				fmt.Fprintln(out, "\nno answer (the input ended): stopping here; --yes approves every gate")
				return false, nil
			}
			return true, nil
		case "n", "no":
			return false, nil
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		fmt.Fprintln(out, "please answer y or n")
	}
}
