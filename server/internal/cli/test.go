package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	contractsschema "github.com/icm-tool/icm/contracts-schema"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/termdoc"
	"github.com/icm-tool/icm/server/internal/workspace"
)

type testFlags struct {
	models, include, exclude              []string
	repeat, parallel, seed                int
	judge, junit, baseline                string
	asJSON, list, runs, cache, clearCache bool
	keep, quiet                           bool
}

func newTestCmd(env *Env, g *globalFlags) *cobra.Command {
	f := &testFlags{}
	cmd := &cobra.Command{
		Use:   "test [STAGE|CASE...]",
		Short: "Run the stages' test cases, repeated and across models, in copies of the workspace",
		Long: `Test runs the cases in the stages' tests/ folders, each in its own copy of the
workspace through the same engine as icm run, checks their expectations and
prints a case × model matrix. ` + "`icm help test`" + ` shows the case grammar.`,
		Example: "  icm test\n  icm test 01-scope --repeat 3 --models qwen3.5:9b,llama3.1:8b\n  icm test --baseline latest --junit report.xml",
		RunE: func(cmd *cobra.Command, args []string) error {
			g.command = "test"
			open := func() (*session.Session, error) { return openSession(env, g, session.Settings{}) }
			sess, err := open()
			if err != nil {
				return err
			}
			if !f.list && !f.runs {
				// Running the cases starts what the workspace names.
				if sess, err = trusted(env, sess, "run its test cases", "icm test", open); err != nil {
					sess.Close()
					return err
				}
			}
			defer sess.Close()
			return runTests(cmd, env, sess, f, args)
		},
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { printTestHelp(env, c) })
	fl := cmd.Flags()
	fl.StringSliceVar(&f.models, "models", nil, "models of the matrix, comma-separated (default [test] models, else each stage's model)")
	fl.IntVar(&f.repeat, "repeat", 0, "runs of each case per model, each with its own seed (default [test] repeat, else 1)")
	fl.IntVar(&f.parallel, "parallel", 0, "jobs run at once (default [test] parallel, else the [[model.servers]] slots, else 1)")
	fl.IntVar(&f.seed, "seed", 0, "the first repeat's seed (default [test] seed, else 1)")
	fl.StringVar(&f.judge, "judge", "", "model that scores rubric lines (default [test] judge, else [model] name)")
	fl.StringArrayVarP(&f.include, "include", "i", nil, "run only cases matching this glob (STAGE/CASE; repeatable)")
	fl.StringArrayVarP(&f.exclude, "exclude", "x", nil, "leave out cases matching this glob (repeatable)")
	fl.StringVar(&f.baseline, "baseline", "", "compare with a saved run: its id, a prefix, or latest")
	fl.BoolVar(&f.cache, "cache", false, "replay identical model requests from history/tests/cache/")
	fl.BoolVar(&f.clearCache, "clear-cache", false, "empty history/tests/cache/ first")
	fl.StringVar(&f.junit, "junit", "", "write JUnit XML to FILE")
	fl.BoolVar(&f.asJSON, "json", false, "print the report (or, with --list and --runs, the list) as JSON")
	fl.BoolVar(&f.list, "list", false, "list the cases without running them")
	fl.BoolVar(&f.runs, "runs", false, "list the saved test runs")
	fl.BoolVar(&f.keep, "keep", false, "keep each job's copy of the workspace and print where it is")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only the matrix")
	return cmd
}

// printTestHelp renders the command's page and the case grammar (the
// section of the contract grammar) for the terminal, then the flags.
func printTestHelp(env *Env, c *cobra.Command) {
	page, err := helpTopics.ReadFile("helptopics/test.md")
	if err != nil {
		fmt.Fprintf(env.Stderr, "icm: unable to read the test help page: %v\n", err)
		return
	}
	if sec := grammarSection("## Stage test cases"); sec != "" {
		page = append(append(page, "\n"...), strings.Replace(sec, "## Stage test cases", "## The case grammar", 1)...)
	}
	_, _ = io.WriteString(env.Stdout, termdoc.Render(page, helpWidth(env)))
	fmt.Fprintf(env.Stdout, "\nUsage:\n  %s\n\nFlags:\n%s", c.UseLine(), c.Flags().FlagUsages())
}

// grammarSection returns one `##` section of grammar.md (read with the
// Markdown parser, so headings inside its examples do not end it).
func grammarSection(heading string) string {
	src := []byte(contractsschema.Grammar)
	for _, sec := range markdown.Parse(src).Sections(2) {
		if "## "+sec.Heading.Text == heading {
			return string(src[sec.Range.Start:sec.Range.End])
		}
	}
	return ""
}

// request is the flags as a test request; config.toml's [test] fills
// what the person left out.
func (f *testFlags) request(cwd string, args []string) session.TestRequest {
	return session.TestRequest{
		TestFilter: session.TestFilter{Cases: args, Dir: cwd, Include: f.include, Exclude: f.exclude},
		Models:     f.models, Repeat: f.repeat, Parallel: f.parallel, Seed: f.seed, Judge: f.judge,
		Cache: f.cache, Keep: f.keep, ClearCache: f.clearCache, Baseline: f.baseline,
	}
}

func runTests(cmd *cobra.Command, env *Env, sess *session.Session, f *testFlags, args []string) error {
	ws := sess.Workspace()
	if f.repeat < 0 || f.parallel < 0 {
		return fault.InvalidRequest("--repeat and --parallel take a positive number", "give each a number from 1")
	}
	if f.runs {
		return listRuns(env, sess, f)
	}
	cwd, err := env.Getwd()
	if err != nil {
		return err
	}
	req := f.request(cwd, args)
	if f.list {
		sel, err := sess.Tests().Cases(sess.Check(nil), req.TestFilter)
		if err != nil {
			return err
		}
		return listCases(env, ws, sel, f)
	}
	if !f.quiet && !f.asJSON {
		req.Progress = func(ev report.TestEvent) {
			if ev.Kind == report.TestJobEnd {
				fmt.Fprintln(env.Stderr, jobLine(ev))
			}
		}
	}
	plan, err := sess.Tests().Plan(req)
	if err != nil {
		return err
	}
	if !f.quiet && !f.asJSON {
		fmt.Fprintf(env.Stderr, "%d case(s) × %d model(s) × %d repeat(s), %d at a time\n", len(plan.Cases), max(len(plan.Models), 1), plan.Repeat, plan.Parallel)
	}
	run, err := plan.Run(cmd.Context())
	if err != nil {
		return err
	}
	if run.SaveErr != nil {
		return run.SaveErr
	}
	rep := run.TestReport
	if f.junit != "" {
		if err := run.WriteJUnit(resolve(cwd, f.junit)); err != nil {
			return err
		}
	}
	if f.asJSON {
		if err := writeJSON(env, struct {
			*report.TestReport
			Baseline *report.TestComparison `json:"baseline,omitempty"`
		}{rep, run.Baseline}); err != nil {
			return err
		}
	} else {
		printMatrix(env.Stdout, rep, run.Baseline)
		fmt.Fprintf(env.Stdout, "run %s saved to %s\n", rep.RunID, displayPath(env, run.Saved))
	}
	if !rep.Complete {
		return fault.Cancelled("cancelled; the jobs that finished are in the saved report", nil)
	}
	if !rep.Passed {
		return &ExitError{Code: 1}
	}
	return nil
}

func listCases(env *Env, ws *workspace.Workspace, sel []*report.TestCase, f *testFlags) error {
	if f.asJSON {
		type item struct {
			ID     string   `json:"id"`
			Title  string   `json:"title"`
			File   string   `json:"file"`
			Expect []string `json:"expect"`
			Errors []string `json:"errors,omitempty"`
		}
		out := []item{}
		for _, s := range sel {
			it := item{ID: s.Case.ID, Title: s.Case.Title, File: ws.Rel(s.Case.File), Errors: s.Errors, Expect: []string{}}
			for _, e := range s.Case.Expect {
				it.Expect = append(it.Expect, e.Label())
			}
			out = append(out, it)
		}
		return writeJSON(env, out)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	for _, s := range sel {
		mark := ""
		if len(s.Errors) > 0 {
			mark = fmt.Sprintf("  %d error(s): icm check shows them", len(s.Errors))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d expectation(s)%s\n", s.Case.ID, s.Case.Title, len(s.Case.Expect), mark)
	}
	tw.Flush()
	fmt.Fprintf(env.Stdout, "%d case(s)\n", len(sel))
	return nil
}

func listRuns(env *Env, sess *session.Session, f *testFlags) error {
	ids, err := sess.Tests().RunIDs()
	if err != nil {
		return err
	}
	type run struct {
		ID      string         `json:"id"`
		Passed  bool           `json:"passed"`
		Counts  map[string]int `json:"counts"`
		Models  []string       `json:"models"`
		Started string         `json:"started"`
	}
	var out []run
	for _, id := range ids {
		rep, err := sess.Tests().Saved(id)
		if err != nil {
			fmt.Fprintf(env.Stderr, "warning: %v\n", err)
			continue
		}
		out = append(out, run{ID: id, Passed: rep.Passed, Counts: rep.Counts, Models: rep.Models, Started: rep.Started.Local().Format("2006-01-02 15:04")})
	}
	if f.asJSON {
		if out == nil {
			out = []run{}
		}
		return writeJSON(env, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(env.Stdout, "no saved test runs")
		return nil
	}
	for _, r := range out {
		verdict := "passed"
		if !r.Passed {
			verdict = "failed"
		}
		fmt.Fprintf(env.Stdout, "%s  %s  %s  %d passed, %d failed, %d error(s)  %s\n", r.ID, r.Started, verdict,
			r.Counts[report.TestPassed], r.Counts[report.TestFailed], r.Counts[report.TestError], strings.Join(r.Models, ", "))
	}
	return nil
}
