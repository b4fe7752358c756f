package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/setup"
)

func newSetupCmd(env *Env, g *globalFlags) *cobra.Command {
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Answer the workspace's setup questions once; the answers go to [vars] in config.toml",
		Long: `Setup asks, one at a time, the questions of the workspace's questionnaire
(setup/questionnaire.md) that fill a setup-time variable ({{NAME}}), then
every variable the stages' texts use that no question fills, and writes
the answers to [vars] in config.toml, where icm reads them when it
assembles a stage. An empty answer takes the default shown in brackets, or
leaves the variable unset; a choice may be answered by its number.
Variables [vars] sets already are not asked again unless --all.

icm check notes the variables still unset. The editor's "ICM: Set Up the
Workspace" asks the same questions in input boxes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, err := openSession(env, g, session.Settings{})
			if err != nil {
				return err
			}
			defer sess.Close()
			plan, err := sess.Setup().Plan(all)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(env, plan)
			}
			return askSetup(env, sess, plan)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "ask again for the variables [vars] sets already")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what would be asked, as JSON, and ask nothing")
	return cmd
}

// askSetup asks the plan's questions on the terminal and saves the answers.
func askSetup(env *Env, sess *session.Session, plan *setup.Plan) error {
	out := env.Stdout
	ws := sess.Workspace()
	if len(plan.Asks) == 0 {
		fmt.Fprintln(out, "nothing to set up: "+nothingToAsk(plan, len(ws.Vars)))
		return nil
	}
	from := ""
	if plan.Questionnaire != "" {
		from = " (from " + plan.Questionnaire + ")"
	}
	fmt.Fprintf(out, "Setting up %s: %s%s. The answers go to [vars] in config.toml.\n", displayPath(env, ws.Root), plural(len(plan.Asks), "question"), from)
	fmt.Fprintln(out, "Press Enter to take the answer in brackets, or to leave the variable unset.")
	in := bufio.NewReader(env.Stdin)
	answers := map[string]string{}
	var left []string
	stopped := false
	for i, a := range plan.Asks {
		if stopped {
			left = append(left, a.Vars...)
			continue
		}
		fmt.Fprintf(out, "\n%d. %s  (%s)\n", i+1, a.Question, placeholders(a.Vars))
		for j, o := range a.Options {
			fmt.Fprintf(out, "   %d) %s\n", j+1, o)
		}
		def := a.Default
		if a.Current != "" {
			def = a.Current
		}
		if def != "" {
			fmt.Fprintf(out, "   [%s] ", def)
		}
		fmt.Fprint(out, "> ")
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if errors.Is(err, io.EOF) && line == "" {
			// No more answers (the input ended): ask nothing more.
			fmt.Fprintln(out)
			stopped = true
			left = append(left, a.Vars...)
			continue
		}
		a.Default = def
		v, ok := a.Answer(strings.TrimRight(line, "\r\n"))
		if !ok {
			left = append(left, a.Vars...)
			continue
		}
		for _, name := range a.Vars {
			answers[name] = v
		}
	}
	fmt.Fprintln(out)
	if len(answers) > 0 {
		path, err := sess.Setup().SaveVars(answers)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(answers))
		for n := range answers {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(out, "wrote %s to [vars] in %s: %s\n", plural(len(names), "value"), displayPath(env, path), strings.Join(names, ", "))
	}
	if len(left) > 0 {
		fmt.Fprintf(out, "still unset: %s (icm setup asks again)\n", placeholders(left))
	}
	return nil
}

func placeholders(vars []string) string {
	q := make([]string, len(vars))
	for i, v := range vars {
		q[i] = "{{" + v + "}}"
	}
	return strings.Join(q, ", ")
}

// nothingToAsk says why a plan asks nothing: a workspace with no
// questionnaire and no variable in [vars] has no setup step at all; one
// with either has every variable it uses set already.
func nothingToAsk(plan *setup.Plan, vars int) string {
	if plan.Questionnaire == "" && vars == 0 {
		return "the workspace has no setup questionnaire (setup/questionnaire.md) and no {{VARIABLE}} placeholders"
	}
	return "every setup-time variable the workspace uses has a value in [vars]"
}
