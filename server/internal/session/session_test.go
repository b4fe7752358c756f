package session

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/usersettings"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// three stages: one names a model in its contract, two do not.
const threeStages = `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "config-model"
%s
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write A.

## Outputs
- a.md -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Model
model: contract-model

## Process
Write B.

## Outputs
- b.md -> output/
`

func openWS(t *testing.T, archive string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(wstest.Write(t, archive), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// openTrusted is openWS with the workspace trusted for what it names (a
// grant in the test's own config folder).
func openTrusted(t *testing.T, archive string) *workspace.Workspace {
	t.Helper()
	ws := openWS(t, archive)
	trusttest.Grant(t, ws.Root)
	return ws
}

func closedPort(t *testing.T) string {
	t.Helper()
	return closedport.URL(t)
}

func models(srv *ollamatest.Server) []string {
	var out []string
	for _, r := range srv.ChatRequests() {
		out = append(out, r.Model)
	}
	return out
}

// TestPrecedence: the model is the setting, else the contract's ## Model,
// else config.toml; the server is the setting, else config.toml's
// base_url, else OLLAMA_HOST.
func TestPrecedence(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{
		{Name: "config-model"}, {Name: "contract-model"}, {Name: "flag-model"}}})
	srv.Default(ollamatest.Text("done"))
	down := closedPort(t)
	cases := []struct {
		name     string
		base     string // config.toml's base_url line
		set      Settings
		env      string // OLLAMA_HOST
		want     []string
		wantKind fault.Kind
	}{
		{name: "config and contract", env: srv.URL(), want: []string{"config-model", "contract-model"}},
		{name: "the setting wins over both", env: srv.URL(), set: Settings{Model: "flag-model"}, want: []string{"flag-model", "flag-model"}},
		{name: "base_url wins over OLLAMA_HOST", base: `base_url = "` + srv.URL() + `"`, env: down, want: []string{"config-model", "contract-model"}},
		{name: "the host setting wins over base_url", base: `base_url = "` + down + `"`, set: Settings{Host: srv.URL()}, env: down, want: []string{"config-model", "contract-model"}},
		{name: "with none answering", base: `base_url = "` + down + `"`, env: srv.URL(), wantKind: fault.KindModelUnreachable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(srv.ChatRequests())
			ws := openTrusted(t, strings.Replace(threeStages, "%s", c.base, 1))
			s := Open(ws, Options{Settings: c.set, Getenv: func(k string) string {
				switch k {
				case "OLLAMA_HOST":
					return c.env
				case usersettings.ConfigDirEnv:
					return os.Getenv(k)
				}
				return ""
			}})
			defer s.Close()
			r, err := s.Runs().New(RunRequest{All: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Execute(context.Background())
			if c.wantKind != "" {
				if fault.KindOf(err) != c.wantKind {
					t.Fatalf("err = %v (kind %s), want %s", err, fault.KindOf(err), c.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := models(srv)[before:]
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("calls went to %v, want %v", got, c.want)
			}
		})
	}
}

// TestStatusAndApproveJudgeWithTheSetting: a stage run under a model
// setting is awaiting review under it and stale without it; approving
// works under the same setting.
func TestStatusAndApproveJudgeWithTheSetting(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "config-model"}, {Name: "flag-model"}}})
	srv.Default(ollamatest.Text("done"))
	ws := openTrusted(t, strings.Replace(threeStages, "%s", `base_url = "`+srv.URL()+`"`, 1))
	flag := Open(ws, Options{Settings: Settings{Model: "flag-model"}})
	defer flag.Close()
	r, err := flag.Runs().New(RunRequest{Stage: "01-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	plain := Open(ws, Options{})
	defer plain.Close()
	if p, _, _ := plain.Status(); p.Stages[0].Status != state.Stale {
		t.Errorf("without the setting: %s (%s)", p.Stages[0].Status, p.Stages[0].Reason)
	}
	if _, err := plain.Reviews().Approve(context.Background(), "01-a", ApproveRequest{}); fault.KindOf(err) != fault.KindStale {
		t.Errorf("approve without the setting: %v", err)
	}
	if p, _, _ := flag.Status(); p.Stages[0].Status != state.Awaiting {
		t.Errorf("with the setting: %s (%s)", p.Stages[0].Status, p.Stages[0].Reason)
	}
	if _, err := flag.Reviews().Approve(context.Background(), "01-a", ApproveRequest{}); err != nil {
		t.Errorf("approve with the setting: %v", err)
	}
	if p, _, _ := flag.Status(); p.Stages[0].Status != state.Approved {
		t.Errorf("after approving: %s", p.Stages[0].Status)
	}
}

// TestRunSendsItsSpansBeforeReturning: with an OTLP endpoint set, a run's
// spans reach the collector before Execute returns (the editor's server
// lives on after a run; nothing waits for its exit), and a run refused
// because another holds the workspace leaves nothing behind to send.
func TestRunSendsItsSpansBeforeReturning(t *testing.T) {
	var posts atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/v1/traces" {
			if b, _ := io.ReadAll(req.Body); len(b) > 0 {
				posts.Add(1)
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "config-model"}}})
	srv.Default(ollamatest.Text("done"))
	ws := openTrusted(t, strings.Replace(threeStages, "%s", `base_url = "`+srv.URL()+`"`, 1))
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL, usersettings.ConfigDirEnv: os.Getenv(usersettings.ConfigDirEnv)}
	s := Open(ws, Options{Getenv: func(k string) string { return env[k] }})
	r, err := s.Runs().New(RunRequest{Stage: "01-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() == 0 {
		t.Fatal("no spans were sent by the time the run returned")
	}

	lock, err := state.Acquire(ws.Disk, "another run")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	sent := posts.Load()
	r2, err := s.Runs().New(RunRequest{Stage: "01-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Execute(context.Background()); fault.KindOf(err) != fault.KindLocked {
		t.Fatalf("err = %v, want locked", err)
	}
	s.Close()
	s.Close() // twice is fine
	if posts.Load() != sent {
		t.Errorf("the refused run sent %d export(s)", posts.Load()-sent)
	}
}

// TestOutputsAreTheStatesOutputs: icm.outputs and the state agree on what
// a stage's outputs are: a templated output is the files in output/, not
// skipped, and a folder output is its files, not the folder.
func TestOutputsAreTheStatesOutputs(t *testing.T) {
	ws := openWS(t, `
-- CLAUDE.md --
# Notes
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write.

## Outputs
- [slug]-brief.md -> output/
-- pipeline/01-a/output/intro-brief.md --
An intro.
-- pipeline/01-a/output/deep-brief.md --
Deep.
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Process
Write.

## Outputs
- output/parts/
-- pipeline/02-b/output/parts/one.md --
One.
`)
	s := Open(ws, Options{})
	defer s.Close()
	for stage, want := range map[string][]string{
		"01-a": {"pipeline/01-a/output/deep-brief.md", "pipeline/01-a/output/intro-brief.md"},
		"02-b": {"pipeline/02-b/output/parts/one.md"},
	} {
		o, err := s.Reviews().Outputs(stage)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range o.Current {
			if !f.Exists {
				t.Errorf("%s listed as missing", f.Path)
			}
			got = append(got, filepath.ToSlash(strings.TrimPrefix(f.Path, ws.Root+string(filepath.Separator))))
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s outputs = %v, want %v", stage, got, want)
		}
	}
	if _, err := s.Reviews().Outputs("09-x"); fault.KindOf(err) != fault.KindNotFound {
		t.Errorf("an unknown stage: %v", err)
	}
}

// TestUnreachableServerKeepsTheApproval: with the model server gone, a
// re-run of an approved stage fails at once (before the engine starts)
// with how to start the server, and the stage stays approved, saying its
// re-run failed and why.
func TestUnreachableServerKeepsTheApproval(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "config-model"}}})
	srv.Default(ollamatest.Text("done"))
	ws := openWS(t, strings.Replace(threeStages, "%s", "", 1))
	up := Open(ws, Options{Settings: Settings{Host: srv.URL()}})
	defer up.Close()
	r, err := up.Runs().New(RunRequest{Stage: "01-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := up.Reviews().Approve(context.Background(), "01-a", ApproveRequest{}); err != nil {
		t.Fatal(err)
	}
	down := Open(ws, Options{Settings: Settings{Host: closedPort(t)}})
	defer down.Close()
	r, err = down.Runs().New(RunRequest{Stage: "01-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Execute(context.Background())
	if f := fault.From(err); f == nil || f.Kind != fault.KindModelUnreachable || f.Stage != "01-a" {
		t.Fatalf("run with the server gone: %v (%+v)", err, f)
	}
	p, _, _ := up.Status()
	s := p.Stages[0]
	if s.Status != state.Approved || s.LastFailure == nil || s.Face == nil || !strings.HasPrefix(s.Face.Detail, "last re-run failed: ") {
		t.Errorf("01-a after the failed re-run: %s %+v %+v", s.Status, s.LastFailure, s.Face)
	}
}

// A key variable goes only to the server it was configured with: when
// the person's host setting replaces base_url, the run talks to that
// host and sends it no key (it was configured with base_url).
func TestAKeyGoesOnlyToItsServer(t *testing.T) {
	const secret = "key-for-the-configured-server-only"
	t.Setenv("CONFIGURED_KEY", secret)
	var keyed atomic.Int32
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "config-model"}, {Name: "contract-model"}}})
	srv.Default(ollamatest.Text("done"))
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.Contains(req.Header.Get("Authorization"), secret) {
			keyed.Add(1)
		}
		httputil.NewSingleHostReverseProxy(mustURL(t, srv.URL())).ServeHTTP(w, req)
	}))
	defer host.Close()
	configured := closedPort(t)
	ws := openTrusted(t, strings.Replace(threeStages, "%s", `base_url = "`+configured+`"`+"\napi_key_env = \"CONFIGURED_KEY\"", 1))
	s := Open(ws, Options{Settings: Settings{Host: host.URL}})
	defer s.Close()
	r, err := s.Runs().New(RunRequest{Stage: "01-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(srv.ChatRequests()) == 0 {
		t.Fatal("the run did not reach the person's host")
	}
	if n := keyed.Load(); n > 0 {
		t.Errorf("%d requests to the person's host carried the key configured for %s", n, configured)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
