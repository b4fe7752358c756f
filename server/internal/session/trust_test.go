package session

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// icm's own tool servers are listed without starting them when the
// workspace is not trusted, and the listing is the one the started
// server gives: it comes from the server packages' own definitions.
func TestOwnServersAreListedWithoutStartingThem(t *testing.T) {
	trusttest.ConfigDir(t)
	dir := wstest.Copy(t, "tech-article")
	open := func() *Session {
		ws, err := workspace.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := Open(ws, Options{Self: icmBin})
		t.Cleanup(s.Close)
		return s
	}
	untrusted := open()
	if untrusted.Trust().Decision().Allowed() {
		t.Fatal("the copy is trusted before anyone trusted it")
	}
	trusttest.Grant(t, dir)
	trusted := open()
	if !trusted.Trust().Decision().Allowed() {
		t.Fatalf("not trusted after the grant: %s", trusted.Trust().Decision().Summary())
	}
	for _, server := range []string{"search-server", "browser-server", "ingest-server"} {
		got, err := untrusted.Tools().List(context.Background(), server)
		if err != nil {
			t.Fatalf("%s untrusted: %v", server, err)
		}
		want, err := trusted.Tools().List(context.Background(), server)
		if err != nil {
			t.Fatalf("%s started: %v", server, err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) || len(got) == 0 {
			t.Errorf("%s: listed without starting\n%s\nstarted\n%s", server, g, w)
		}
	}
	if untrusted.catalog != nil {
		t.Error("the untrusted session made a catalog of started servers")
	}
}

// Untrusted, everything that acts is refused with one kind of fault whose
// action is to trust the workspace; reading goes on.
func TestTheGateRefusesWhatActs(t *testing.T) {
	trusttest.ConfigDir(t)
	h := trusttest.NewHostile(t, trusttest.HostileOptions{})
	ws, err := workspace.Open(h.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Open(ws, Options{Self: icmBin, Getenv: func(k string) string {
		if k == "OLLAMA_HOST" {
			return "127.0.0.1:1"
		}
		return os.Getenv(k)
	}})
	defer s.Close()
	ctx := context.Background()
	refused := func(what string, err error) {
		t.Helper()
		f := fault.From(err)
		if f == nil || f.Kind != fault.KindUntrusted || len(f.Actions) == 0 || f.Actions[0].ID != fault.TrustWorkspace || f.Actions[0].File != ws.Root {
			t.Errorf("%s: %v (%+v), want a refusal whose action trusts %s", what, err, f, ws.Root)
		}
	}
	_, err = s.Runs().New(RunRequest{}, nil)
	refused("run", err)
	_, err = s.Reviews().Approve(ctx, "01-a", ApproveRequest{Force: true, Note: "checked by hand"})
	refused("approve with a run: check", err)
	_, err = s.Tools().open(ctx, map[string][]string{"local": nil})
	refused("open tools", err)
	_, err = s.Tools().List(ctx, "local")
	refused("list a third-party server", err)
	_, err = s.modelClient()
	refused("the model client", err)
	_, err = s.ModelServer().Models(ctx)
	refused("the models", err)
	_, err = s.ModelServer().PreparePull("m")
	refused("pull", err)
	_, err = s.Tests().Plan(TestRequest{})
	refused("test", err)
	_, err = s.Runs().Step(StepRequest{NeedModel: true})
	refused("a Script stage's subcommand", err)
	_, err = s.Runs().Submission(Submission{Agent: "agent", Stage: "01-a"}, nil)
	refused("an agent's hand-in", err)
	_, err = s.Reviews().ApproveAs(ctx, "01-a", "agent:someone")
	refused("an agent's approval", err)
	refused("a review note", s.Reviews().Note(&state.ReviewNote{Stage: "01-a"}))
	if w, err := s.ModelServer().Window(ctx); w != 0 || err != nil {
		t.Errorf("window: %d, %v (want unknown, not asked)", w, err)
	}
	if _, _, err := s.Status(); err != nil {
		t.Errorf("status: %v", err)
	}
	if _, err := s.Probe(nil, "03-c", 0); err != nil {
		t.Errorf("probe: %v", err)
	}
	if _, err := s.Tools().List(ctx, "search-server"); err != nil {
		t.Errorf("icm's own server: %v", err)
	}
	if env := s.inherited(); env[trusttest.SecretEnv] != "" {
		t.Error("the key variable was read for the children of an untrusted session")
	}
	h.AssertQuiet(t, "the session's operations")
}

// A stage test's copy of the workspace carries the original's trust while
// the job runs: an icm the copy's Script stage starts there (without the
// trust the run passes on, ICM_TRUSTED) finds the copy trusted by its
// record, "a copy of" the original. The record goes when the job ends.
func TestATestCopyCarriesTheTrust(t *testing.T) {
	trusttest.ConfigDir(t)
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Notes
-- pipeline/01-s/CONTEXT.md --
# Stage: 01-s

## Script
unset ICM_TRUSTED; "$ICM_BIN" trust --show --json -w "$ICM_WORKSPACE" > "$ICM_OUTPUT/trust.json"

## Outputs
- trust.json -> output/
-- pipeline/01-s/tests/copy.md --
# Case: copy

## Expect
- contains "\"state\": \"trusted\""
- contains "a copy of"
`)
	trusttest.Grant(t, dir)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Open(ws, Options{Self: icmBin})
	defer s.Close()
	plan, err := s.Tests().Plan(TestRequest{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := plan.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed {
		b, _ := json.MarshalIndent(rep, "", "  ")
		t.Errorf("the copy was not trusted by its record:\n%s", b)
	}
	recs, _ := trusttest.Store(t).List()
	if len(recs) != 1 || recs[0].Path != ws.Root {
		t.Errorf("records after the test: %+v (the copy's should be gone)", recs)
	}
}
