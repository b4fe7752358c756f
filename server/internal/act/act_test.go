package act

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

var (
	allowAll = PermitFunc(func(Action) error { return nil })
	refuse   = PermitFunc(func(Action) error { return errors.New("not trusted") })
)

// touch is an action that leaves a file when it runs.
func touch(t *testing.T, kind Kind) (Action, string) {
	marker := filepath.Join(t.TempDir(), "ran")
	return Action{Kind: kind, Argv: []string{"sh", "-c", "touch " + marker}, Named: Named{Line: "touch " + marker}}, marker
}

func TestARefusedCommandNeverStarts(t *testing.T) {
	for name, p := range map[string]Permit{"nil": nil, "refusing": refuse, "own, for a script": Own("a test")} {
		t.Run(name, func(t *testing.T) {
			a, marker := touch(t, Script)
			err := Command(t.Context(), p, a).Run()
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("Run = %v, want a refusal", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the refused command ran")
			}
		})
	}
}

func TestAnAllowedCommandRuns(t *testing.T) {
	for name, p := range map[string]Permit{"allowed": allowAll, "own work": Own("a test")} {
		t.Run(name, func(t *testing.T) {
			a, marker := touch(t, Self)
			if err := Command(t.Context(), p, a).Run(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatal("the allowed command did not run")
			}
		})
	}
}

func TestTheRefusalCarriesThePermitsReason(t *testing.T) {
	a, _ := touch(t, Check)
	err := Command(t.Context(), refuse, a).Run()
	if err == nil || !strings.Contains(err.Error(), "not trusted") || !strings.Contains(err.Error(), a.Named.Line) {
		t.Fatalf("error = %v, want the reason and the command", err)
	}
}

// counting is a server that counts the requests it gets.
func counting(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path == "/away" {
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestARefusedClientConnectsNowhere(t *testing.T) {
	srv, n := counting(t)
	for name, p := range map[string]Permit{"nil": nil, "refusing": refuse} {
		c := HTTPClient(p, Action{Kind: Contact, URL: srv.URL}, HTTP{})
		resp, err := c.Get(srv.URL + "/x")
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%s: the request went through", name)
		}
		var r *Refusal
		if !errors.As(err, &r) {
			t.Errorf("%s: error = %v, want a refusal", name, err)
		}
	}
	if got := n.Load(); got != 0 {
		t.Fatalf("the server got %d requests", got)
	}
}

func TestAClientReachesOnlyItsServer(t *testing.T) {
	srv, n := counting(t)
	other, m := counting(t)
	c := HTTPClient(allowAll, Action{Kind: Contact, URL: srv.URL}, HTTP{})
	resp, err := c.Get(srv.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp, err := c.Get(other.URL + "/x"); err == nil {
		resp.Body.Close()
		t.Fatal("a request to another server went through")
	}
	if resp, err := c.Get(srv.URL + "/away?to=" + other.URL + "/y"); err == nil {
		resp.Body.Close()
		t.Fatal("a redirect to another server was followed")
	}
	if n.Load() != 2 || m.Load() != 0 {
		t.Fatalf("requests: its server %d (want 2), the other %d (want 0)", n.Load(), m.Load())
	}
}

func TestARefusedDialConnectsNowhere(t *testing.T) {
	srv, n := counting(t)
	addr := strings.TrimPrefix(srv.URL, "http://")
	if _, err := Dial(t.Context(), refuse, Action{Kind: Contact, URL: srv.URL}, "tcp", addr, Dialing{}); err == nil {
		t.Fatal("the refused dial connected")
	}
	conn, err := Dial(t.Context(), allowAll, Action{Kind: Contact, URL: srv.URL}, "tcp", addr, Dialing{})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if n.Load() != 0 {
		t.Fatal("a bare connection made a request")
	}
}

func TestAskRefusesWithoutAPermit(t *testing.T) {
	if err := Ask(nil, Action{Kind: Pull, Named: Named{Model: "m"}}); err == nil {
		t.Fatal("a pull without a permit was allowed")
	}
	if err := Ask(Own("a test"), Action{Kind: Pull, Named: Named{Model: "m"}}); err == nil {
		t.Fatal("icm's own permit allowed a pull a workspace names")
	}
}
