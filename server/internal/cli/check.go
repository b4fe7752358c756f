package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/termsafe"
	"github.com/icm-tool/icm/server/internal/testcase"
)

func newCheckCmd(env *Env, g *globalFlags) *cobra.Command {
	var asJSON, conventions bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check every stage contract of the workspace",
		Long: `Check parses every stage contract and reports what is wrong, file:line:col
first: missing sections, inputs that do not exist or come from a later stage,
paths that leave the workspace, bad For each sources, output conflicts, size
and token budgets, unknown tool servers. Exit status 1 when any error is found.

An error means the stage will not run, and only a fact icm is certain of is
one: a plain listed input that exists nowhere and that no stage writes, a
prompt over the model's window, a config.toml icm cannot use, a file icm will
not read (docs/refusals.md lists them all). Anything else, a malformed line
of icm's own notation included, is a warning shown when the stage runs; what
rests on reading someone else's notation is a note.
--conventions adds the ICM template's own house rules (its bin/validate.py) as
warnings; [check] conventions = "icm-template" in config.toml does the same.`,
		Example: "  icm check\n  icm check -w workspaces/course-research --json\n  icm check --conventions --repo . -w workspaces/script-to-animation",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			settings := session.Settings{}
			if conventions {
				settings.Conventions = check.ConventionsTemplate
			}
			sess, err := openSession(env, g, settings)
			if err != nil {
				return err
			}
			defer sess.Close()
			rep := sess.Check(nil)
			if asJSON {
				if err := writeJSON(env, checkJSON(env, rep)); err != nil {
					return err
				}
			} else {
				printFindings(env, rep)
				printTrustLine(env, sess)
			}
			if rep.HasErrors() {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the parsed contracts and findings as JSON (see contracts-schema/)")
	cmd.Flags().BoolVar(&conventions, "conventions", false, "also check the ICM template's own conventions (the rules of its bin/validate.py), as warnings")
	return cmd
}

// located is a finding with its human position.
type located struct {
	contract.Finding
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	EndLine int    `json:"end_line"`
	EndCol  int    `json:"end_column"`
}

func locate(env *Env, rep *check.Report, fs []contract.Finding) []located {
	mappers := map[string]*document.Mapper{}
	out := make([]located, 0, len(fs))
	for _, f := range fs {
		l := located{Finding: f, Path: displayPath(env, f.File), Line: 1, Column: 1, EndLine: 1, EndCol: 1}
		m, ok := mappers[f.File]
		if !ok {
			if src, err := rep.Workspace.Files.ReadFile(f.File); err == nil {
				m = document.NewMapper(src)
			}
			mappers[f.File] = m
		}
		if m != nil {
			if line, col, err := m.LineCol(f.Range.Start); err == nil {
				l.Line, l.Column = line, col
			}
			if line, col, err := m.LineCol(f.Range.End); err == nil {
				l.EndLine, l.EndCol = line, col
			}
		}
		out = append(out, l)
	}
	return out
}

func printFindings(env *Env, rep *check.Report) {
	counts := map[contract.Severity]int{}
	for _, l := range locate(env, rep, rep.Findings) {
		counts[l.Severity]++
		fmt.Fprintf(env.Stdout, "%s:%d:%d: %s: %s [%s]\n", l.Path, l.Line, l.Column, l.Severity.Word(), l.Message, l.Code)
	}
	name := displayPath(env, rep.Workspace.Root)
	if name == "." {
		// Checked from inside: the folder's own name says which.
		name = filepath.Base(rep.Workspace.Root)
	}
	fmt.Fprintf(env.Stdout, "%s: %s, %s, %s, %s\n", name, plural(len(rep.Stages), "stage"),
		plural(counts[contract.Error], "error"), plural(counts[contract.Warning], "warning"), plural(counts[contract.Info], "note"))
}

func plural(n int, word string) string {
	return human.Plural(n, word)
}

// checkReport is the JSON shape of `icm check --json`; contracts-schema
// describes it.
type checkReport struct {
	Workspace string         `json:"workspace"`
	Stages    []checkStage   `json:"stages"`
	Findings  []located      `json:"findings"`
	Summary   map[string]int `json:"summary"`
}

type checkStage struct {
	Name     string             `json:"name"`
	Contract *contract.Contract `json:"contract"`
	Tokens   int                `json:"tokens"`
	Items    int                `json:"items"`
	Cases    []*testcase.Case   `json:"cases,omitempty"`
}

func checkJSON(env *Env, rep *check.Report) checkReport {
	out := checkReport{Workspace: rep.Workspace.Root, Findings: locate(env, rep, rep.Findings), Summary: map[string]int{"error": 0, "warning": 0, "info": 0, "hint": 0}}
	for _, f := range rep.Findings {
		out.Summary[f.Severity.String()]++
	}
	for _, s := range rep.Stages {
		cs := checkStage{Name: s.Stage.Name, Contract: s.Contract, Items: s.Items, Cases: s.Cases}
		if s.Context != nil {
			cs.Tokens = s.Context.Total
		}
		out.Stages = append(out.Stages, cs)
	}
	if out.Stages == nil {
		out.Stages = []checkStage{}
	}
	return out
}

// writeJSON prints v as JSON, for programs: unescaped (termsafe.Raw).
func writeJSON(env *Env, v any) error {
	enc := json.NewEncoder(termsafe.Raw(env.Stdout))
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("unable to write JSON: %w", err)
	}
	return nil
}

// isTerminal reports whether w is a terminal (for colour and progress bars).
func isTerminal(w io.Writer) bool {
	f, ok := termsafe.Raw(w).(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
