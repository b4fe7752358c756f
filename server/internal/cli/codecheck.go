package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/codecheck"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/termsafe"
	"github.com/icm-tool/icm/server/internal/workspace"
)

type codeCheckFlags struct {
	run, fix, strict, asJSON bool
	out, report, model       string
	attempts                 int
}

func newCodeCheckCmd(env *Env, g *globalFlags) *cobra.Command {
	f := &codeCheckFlags{}
	cmd := &cobra.Command{
		Use:   "code-check FILE",
		Short: "Parse and run the Python and Go blocks of a Markdown file, fixing failing ones with the model",
		Long: `code-check finds every fenced Python and Go block of FILE, parses it
(Python's ast module, Go's go/parser) and, with --run, runs it in the code
sandbox: a throwaway folder, no network, a time limit that kills every
process it started, memory, CPU, file-size, process and output limits, an
unprivileged user, a minimal environment, no package installs. A block whose
info string says no-run (` + "```python no-run" + `) is parsed, never run.

With --fix a failing block goes to the model with its first error only; the
answer replaces the block and the block is checked again, at most --attempts
times. A block no attempt fixes keeps its original code. --out writes the
document with the fixes, --report a Markdown report of every block.

It exits 0 when the check ran, whatever it found (a Script stage's Verify
step decides), unless --strict.`,
		Example: "  icm code-check article.md --run\n  \"$ICM_BIN\" code-check ../06-revise/output/article.md --run --fix --out \"$ICM_OUTPUT/article.md\" --report \"$ICM_OUTPUT/code-report.md\"",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCodeCheck(cmd, env, g, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.run, "run", false, "run the blocks in the sandbox (default: parse only)")
	fl.BoolVar(&f.fix, "fix", false, "send failing blocks to the model and splice its fixes in")
	fl.IntVar(&f.attempts, "attempts", codecheck.DefaultAttempts, "fixes tried per block")
	fl.StringVar(&f.out, "out", "", "write the document (with fixes) here")
	fl.StringVar(&f.report, "report", "", "write a Markdown report of every block here")
	fl.StringVar(&f.model, "model", "", "model for fixes (default $ICM_MODEL, else config.toml)")
	fl.BoolVar(&f.strict, "strict", false, "exit 1 when a block still fails")
	fl.BoolVar(&f.asJSON, "json", false, "print the block reports as JSON")
	return cmd
}

func runCodeCheck(cmd *cobra.Command, env *Env, g *globalFlags, f *codeCheckFlags, file string) error {
	cwd, err := env.Getwd()
	if err != nil {
		return err
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, file)
	}
	src, err := workspace.ReadFileAt(abs, 0)
	if err != nil {
		return fmt.Errorf("unable to read %s: %w", file, err)
	}
	var out []byte
	var reports []codecheck.BlockReport
	if f.fix {
		sc, err := openStep(env, g, f.model, true)
		if err != nil {
			return err
		}
		defer sc.close()
		out, reports, err = sc.step.FixCode(cmd.Context(), src, f.run, f.attempts)
		if err != nil {
			return err
		}
	} else {
		if reports, err = session.CheckCode(cmd.Context(), src, f.run); err != nil {
			return err
		}
		out = src
	}
	if f.out != "" {
		if err := workspace.WriteFileAt(resolve(cwd, f.out), out, 0o644); err != nil {
			return err
		}
	}
	if f.report != "" {
		if err := workspace.WriteFileAt(resolve(cwd, f.report), []byte(codeReport(file, reports)), 0o644); err != nil {
			return err
		}
	}
	failed := 0
	for _, r := range reports {
		if !r.Result.OK {
			failed++
			fs := codecheck.Finding(file, r.Result)
			fmt.Fprintf(env.Stderr, "%s:%d: %s\n", fs.File, fs.Line, fs.Message)
		}
	}
	if f.asJSON {
		data, _ := json.MarshalIndent(reports, "", "  ")
		fmt.Fprintln(termsafe.Raw(env.Stdout), string(data))
	} else {
		fmt.Fprintf(env.Stdout, "%d code block(s) checked, %d failing\n", len(reports), failed)
	}
	if failed > 0 && f.strict {
		return &ExitError{Code: 1}
	}
	return nil
}

func resolve(cwd, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}

// codeReport is the Markdown report a person reads at the gate.
func codeReport(file string, reports []codecheck.BlockReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Code check of %s\n\n", filepath.Base(file))
	fixed, failed := 0, 0
	for _, r := range reports {
		if r.Result.OK && len(r.Attempts) > 0 {
			fixed++
		}
		if !r.Result.OK {
			failed++
		}
	}
	fmt.Fprintf(&b, "%d block(s): %d passed as written, %d fixed, %d failing.\n\n", len(reports), len(reports)-fixed-failed, fixed, failed)
	b.WriteString("| # | Language | Line | Result | Fixes | Note |\n|---|---|---|---|---|---|\n")
	for _, r := range reports {
		res := r.Result
		verdict := "passed"
		switch {
		case !res.OK:
			verdict = "**failing**"
		case res.Skipped != "":
			verdict = "parsed"
		case !res.Ran:
			verdict = "parsed"
		}
		note := res.Skipped
		if !res.OK {
			note = res.Error
		} else if len(r.Attempts) > 0 {
			note = "was: " + r.FirstError
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %s | %d | %s |\n", res.Index, res.Lang, res.Line, verdict, len(r.Attempts), cell(note))
	}
	for _, r := range reports {
		if len(r.Attempts) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## Block %d (line %d)\n\nFirst error: %s\n", r.Result.Index, r.Result.Line, r.FirstError)
		for i, a := range r.Attempts {
			status := "passed"
			if !a.OK {
				status = "failed: " + a.After
			}
			fmt.Fprintf(&b, "\n### Fix %d (%s): %s\n\n```text\n%s```\n", i+1, r.Result.Lang, status, a.Code)
		}
	}
	return b.String()
}

func cell(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	return strings.ReplaceAll(s, "|", "\\|")
}
