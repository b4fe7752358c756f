package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// openHostile opens a session on the hostile workspace with trust.
func openHostile(t *testing.T, h *trusttest.Hostile, trustOpts TrustOptions) *Session {
	t.Helper()
	ws, err := workspace.Open(h.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Open(ws, Options{Self: icmBin, Trust: trustOpts, Getenv: func(k string) string {
		if k == "OLLAMA_HOST" {
			return "127.0.0.1:1" // the person's own server: nothing there
		}
		return os.Getenv(k)
	}})
	t.Cleanup(s.Close)
	return s
}

// part is the value of the decision's part of kind.
func part(t *testing.T, s *Session, kind trust.Kind) string {
	t.Helper()
	for _, p := range s.Trust().Decision().Parts {
		if p.Kind == kind {
			return p.Value
		}
	}
	t.Fatalf("the workspace names no %s", kind)
	return ""
}

// The gate holds where icm acts, not only where an operation starts:
// with the session's permit of an untrusted workspace, or of one in
// Restricted Mode, the engine itself refuses each kind of thing the
// workspace names as it is about to start or connect (here reached
// without the operations' own Require): a Script stage, a `run:` check,
// a test case's `run:`, a stdio tool server, an HTTP tool server, the
// model server it names and a pull from its registry. Nothing runs and
// nothing is contacted.
func TestThePermitStopsEachKindWhereItActs(t *testing.T) {
	for name, opts := range map[string]TrustOptions{"untrusted": {}, "restricted": {Explicit: true, Restricted: true}} {
		t.Run(name, func(t *testing.T) {
			trusttest.ConfigDir(t)
			h := trusttest.NewHostile(t, trusttest.HostileOptions{})
			s := openHostile(t, h, opts)
			ws, p, ctx := s.ws, s.permit(), context.Background()
			refused := func(what string, err error) {
				t.Helper()
				if fault.KindOf(err) != fault.KindUntrusted {
					t.Errorf("%s: %v, want an untrusted fault", what, err)
				}
			}

			eng, err := workflow.New(ws, workflow.Options{Stage: "02-b", Force: true, Permit: p})
			if err != nil {
				t.Fatal(err)
			}
			_, err = eng.Run(ctx)
			refused("the Script stage", err)

			stage := filepath.Join(ws.Root, "pipeline", "01-a")
			for kind, line := range map[act.Kind]string{act.Check: part(t, s, trust.Check), act.CaseCheck: part(t, s, trust.CaseCheck)} {
				res := verify.Run(ctx, []contract.Check{{Kind: contract.CheckRun, Arg: line}}, nil,
					verify.Env{StageDir: stage, Workspace: ws.Root, Stage: "01-a", Permit: p, RunKind: kind})
				if res[0].OK || len(res[0].Findings) == 0 || !strings.Contains(res[0].Findings[0].Message, "not trusted") {
					t.Errorf("the %s: %+v, want a finding that says it was refused", kind, res[0])
				}
			}

			for _, server := range []string{"local", "portable", "remote"} {
				set, err := tools.Open(ctx, s.box.Registry, map[string][]string{server: nil}, s.toolOptions(ws.Root))
				if err == nil {
					set.Close()
				}
				refused("tool server "+server, err)
			}

			// The client a forgetful caller would build from config.toml
			// as written: its server and its key.
			client, err := llm.FromConfig(ws.Config.Model, os.Getenv, llm.WithPermit(p), llm.WithRetry(0, 1))
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.Chat(ctx, llm.ChatRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			refused("the model server it names", err)
			own, err := llm.NewOllama(llm.WithPermit(p), llm.WithGetenv(s.opts.Getenv), llm.WithRetry(0, 1))
			if err != nil {
				t.Fatal(err)
			}
			refused("a pull from the registry it names", own.Pull(ctx, h.Registry+"/ns/m:latest", nil))

			h.AssertQuiet(t, "the engine with the session's permit")
		})
	}
}

// A pinned command pins what it runs until it starts: a script rewritten
// after the session decided its trust (as a pull in another window
// would) is refused when its stage starts, naming the file, and the new
// script never runs (issue 30).
func TestAScriptRewrittenAfterTheSessionOpenedIsRefused(t *testing.T) {
	trusttest.ConfigDir(t)
	h := trusttest.NewHostile(t, trusttest.HostileOptions{})
	trusttest.Grant(t, h.Dir)
	s := openHostile(t, h, TrustOptions{})
	if !s.Trust().Decision().Allowed() {
		t.Fatalf("not trusted after the grant: %s", s.Trust().Decision().Summary())
	}
	run := func() error {
		r, err := s.Runs().New(RunRequest{Stage: "02-b"}, nil)
		if err != nil {
			return err
		}
		_, err = r.Execute(context.Background())
		return err
	}
	if err := run(); err != nil {
		t.Fatalf("the trusted Script stage: %v", err)
	}
	if got := strings.Join(h.Traces(), ","); got != "script-stage" {
		t.Fatalf("the trusted run ran %q", got)
	}
	h.RewriteScript(t)
	err := run()
	if fault.KindOf(err) != fault.KindUntrusted || !strings.Contains(err.Error(), h.Script+" changed since you trusted it") {
		t.Fatalf("the run after the rewrite: %v, want an untrusted fault naming %s", err, h.Script)
	}
	if got := strings.Join(h.Traces(), ","); got != "script-stage" {
		t.Errorf("after the rewrite, the commands that ran: %q (the rewritten script must not run)", got)
	}
}
