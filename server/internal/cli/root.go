// Package cli is the icm command line: one file per subcommand. A command
// reads its flags and the environment, asks the application layer
// (package session) for the work, and renders what comes back: text or
// JSON on standard output, progress and warnings on standard error, and
// errors as the fault's message, hint and one command line per fix
// (errors.go). It builds no model client, starts no stage's tool servers
// and reads no run history itself; icm's own MCP servers (icm mcp) are
// served from here over their packages (mcpserver/...), the reader's model
// client built by the session.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/termsafe"
)

// Version is the icm version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// Env is what a command may touch of the outside world. Tests fill it with
// buffers and a fake environment.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Getwd returns the current folder.
	Getwd func() (string, error)
	// Self is the icm executable that `command = "icm"` MCP servers run;
	// "" means this executable.
	Self string
	// Interactive says a person is at a terminal to answer questions
	// (trusting a workspace); without one, icm never asks.
	Interactive bool
}

// ExitError ends the program with Code after printing nothing more; the
// command already said what went wrong.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Main runs icm with args and returns the process exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Getwd: os.Getwd,
		Interactive: inputIsTerminal(stdin) && isTerminal(stderr)}
	return MainWith(ctx, env, args)
}

// MainWith is Main in an Env of the caller's (tests that choose the icm
// executable icm's own servers run): it runs icm with args and returns the
// exit code, having printed any error on env's standard error.
func MainWith(ctx context.Context, env *Env, args []string) int {
	code := exitCode(env, Run(ctx, env, args))
	if sig, ok := interruptedCode(ctx); ok && code != 0 {
		// Ended by Ctrl-C or SIGTERM: the shell's code for it, whether
		// the command stopped within the grace or not.
		return sig
	}
	return code
}

// exitCode is the process exit code of Run's error, which it prints on
// env's standard error.
func exitCode(env *Env, err error) int {
	if err == nil {
		return 0
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	w := termsafe.NewWriter(env.Stderr)
	printError(env, w, err)
	_ = w.Flush()
	return 1
}

// Run runs icm with args in env. What commands print goes through
// termsafe writers: text from files, models and servers reaches the
// terminal with its control characters escaped; output for programs
// (writeJSON, the protocol streams) is written to termsafe.Raw.
func Run(ctx context.Context, env *Env, args []string) error {
	safe := *env
	stdout, stderr := termsafe.NewWriter(env.Stdout), termsafe.NewWriter(env.Stderr)
	safe.Stdout, safe.Stderr = stdout, stderr
	defer func() { _ = stderr.Flush() }()
	defer func() { _ = stdout.Flush() }()
	env = &safe
	root, g := newRootCmd(env)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	started := false
	markStart(root, &started)
	if err := root.ExecuteContext(ctx); err != nil {
		if !started && !fault.Classified(err) {
			// cobra refused the command line before any command ran: an
			// unknown command or flag, a wrong number of arguments.
			err = fault.InvalidRequest(err.Error(), "check the command line against the command's help").Because(err)
		}
		return &flaggedError{err: err, flags: usedFlags{workspace: g.workspace, model: g.model, name: g.command}}
	}
	return nil
}

// markStart sets *started when the RunE of c or of a command below it
// begins, so that Run tells the errors of the commands from cobra's own
// refusals of a command line, which come before any RunE.
func markStart(c *cobra.Command, started *bool) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			*started = true
			return run(cmd, args)
		}
	}
	for _, sub := range c.Commands() {
		markStart(sub, started)
	}
}

// globalFlags are the flags every command shares.
type globalFlags struct {
	workspace string
	// repo is the repository root shared "/…" inputs are read from
	// (--repo DIR; ICM_REPO when not given).
	repo string
	// model is the --model override of the command that ran, for the
	// commands its errors suggest.
	model string
	// trust is --trust: act for the workspace this once without a record.
	trust bool
	// command names the command that ran, for the fixes its errors
	// suggest ("run", "test").
	command string
}

func newRootCmd(env *Env) (*cobra.Command, *globalFlags) {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "icm",
		Short: "Run staged, reviewable local-model workflows from folders of Markdown contracts",
		Long: `icm runs Interpretable Context Methodology workspaces: each step of a job is a
numbered folder with a Markdown contract (CONTEXT.md) that names its inputs,
tools, process and outputs. icm assembles exactly that context, runs a local
model through Ollama with only the tools the stage allows, writes the output
and stops at a review gate.`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVarP(&g.workspace, "workspace", "w", "", "workspace folder (default: the current folder or its nearest parent holding CLAUDE.md, or CONTEXT.md and pipeline/)")
	root.PersistentFlags().StringVar(&g.repo, "repo", "", "the repository root that shared /… inputs are read from (default: ICM_REPO, else the nearest folder holding .git; outside git, only the workspace)")
	root.PersistentFlags().BoolVar(&g.trust, "trust", false, "trust the workspace for this command only, without asking or keeping a record (for CI; icm trust keeps one)")
	root.SetFlagErrorFunc(flagError)
	for _, c := range commands(env, g) {
		root.AddCommand(c)
	}
	addHelpTopics(root, env)
	addCompletions(root, env, g)
	return root, g
}

// commands lists every subcommand. Add new ones here.
func commands(env *Env, g *globalFlags) []*cobra.Command {
	return []*cobra.Command{
		newVersionCmd(env),
		newCheckCmd(env, g),
		newProbeCmd(env, g),
		newStatusCmd(env, g),
		newRunCmd(env, g),
		newTestCmd(env, g),
		newReviewCmd(env, g),
		newApproveCmd(env, g),
		newHistoryCmd(env, g),
		newPullCmd(env, g),
		newMCPCmd(env, g),
		newLSPCmd(env),
		newInitCmd(env),
		newNewStageCmd(env, g),
		newCodeCheckCmd(env, g),
		newCritiqueCmd(env, g),
		newExportCmd(env, g),
		newResearchCmd(env, g),
		newDemoCmd(env),
		newTrustCmd(env, g),
		newDoctorCmd(env, g),
		newSetupCmd(env, g),
	}
}

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the icm version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(env.Stdout, "icm %s\n", Version)
			return nil
		},
	}
}
