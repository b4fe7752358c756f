package tools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/tools/mcpfixture"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// allowAll permits every server, as a trusted workspace's permit
// permits the servers it names.
var allowAll = act.PermitFunc(func(act.Action) error { return nil })

// refusing refuses everything and keeps what it was asked.
type refusing struct {
	mu    sync.Mutex
	asked []act.Action
}

func (r *refusing) Permit(a act.Action) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, a)
	return errors.New("the workspace is not trusted")
}

// A stdio server asks its permit before it starts, told the entry as the
// workspace writes it: refused, it never starts and Open says why.
func TestARefusedServerNeverStarts(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": "[mcp.servers.local]\ncommand = \"sh\"\nargs = [\"-c\", \"touch ${workspaceFolder}/started\"]\n",
	})
	cfg, err := workspace.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := testLoader().Load(dir, cfg)
	for _, reaper := range []string{"", "-"} {
		p := &refusing{}
		opts := testOptions()
		opts.Permit, opts.Reaper = p, reaper
		s, err := Open(context.Background(), reg, map[string][]string{"local": nil}, opts)
		if err == nil {
			s.Close()
			t.Fatal("a refused server was opened")
		}
		if !strings.Contains(err.Error(), "not trusted") {
			t.Errorf("error %q does not say why", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			t.Fatal("the refused server started")
		}
		if len(p.asked) != 1 {
			t.Fatalf("the permit was asked %d times", len(p.asked))
		}
		a := p.asked[0]
		if a.Kind != act.ToolServer || a.Named.Command != "sh" || len(a.Named.Args) != 2 || a.Named.Args[1] != "touch ${workspaceFolder}/started" {
			t.Errorf("asked %+v, want the entry as written", a)
		}
		if !strings.Contains(strings.Join(a.Argv, " "), "touch "+dir+"/started") {
			t.Errorf("asked to start %q, want the expanded command", a.Argv)
		}
	}
}

// An HTTP or SSE server asks its permit before every request: refused,
// it is never contacted.
func TestARefusedRemoteServerIsNeverContacted(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	for _, tr := range []string{TransportHTTP, TransportSSE} {
		p := &refusing{}
		opts := testOptions()
		opts.Permit = p
		written := Server{Name: "r", URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer ${env:TOKEN}"}}
		reg := Registry{"r": {Name: "r", Transport: tr, URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer x"}, Written: &written}}
		s, err := Open(context.Background(), reg, map[string][]string{"r": nil}, opts)
		if err == nil {
			s.Close()
			t.Fatalf("%s: a refused server was opened", tr)
		}
		if len(p.asked) == 0 {
			t.Fatalf("%s: the permit was not asked", tr)
		}
		a := p.asked[0]
		if a.Kind != act.Contact || a.Named.Address != written.URL || strings.Join(a.Named.Headers, ",") != "Authorization" {
			t.Errorf("%s: asked %+v, want the url and header names as written", tr, a)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the refused server got %d requests", n)
	}
}

// A catalog a new session takes over starts what it starts next with
// that session's permit.
func TestACatalogStartsWithItsLatestPermit(t *testing.T) {
	stream := httptest.NewServer(server.NewStreamableHTTPServer(mcpfixture.New(mcpfixture.Options{Name: "remote"})))
	t.Cleanup(stream.Close)
	reg := Registry{"web": {Name: "web", Transport: TransportHTTP, URL: stream.URL + "/mcp"}}
	opts := testOptions()
	opts.Permit = &refusing{}
	c := NewCatalog(opts)
	c.SetPermit(allowAll)
	if _, err := c.ListTools(context.Background(), reg, "web"); err != nil {
		t.Fatalf("listed with the new permit: %v", err)
	}
	c.SetPermit(&refusing{})
	reg["other"] = Server{Name: "other", Transport: TransportHTTP, URL: stream.URL + "/mcp?o"}
	if _, err := c.ListTools(context.Background(), reg, "other"); err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Fatalf("listed with a refusing permit: %v", err)
	}
	c.Wait()
}
