// Package demo is icm's demo: the sample workspace course-research, copied
// into a folder of its own and wired to canned stand-ins on 127.0.0.1, so
// a person can watch the whole pipeline run, stop at each gate and move on
// without a model server, a search engine or the internet. The stand-ins
// are the demo's own (package canned): a model server speaking Ollama's
// API that answers from script.json, a search backend speaking SearXNG's
// and a site serving pages written for the demo. The copy's
// page reader may read that one site, though it is on a loopback address;
// for every other workspace the reader's refusal of private addresses
// stays as it is. The tracked sample is only read, never written.
package demo

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/demo/canned"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/workspace"
	"github.com/icm-tool/icm/workspaces"
)

// Model is the name the canned model server answers to, and the model
// the copy's config.toml names.
const Model = "canned-demo"

//go:embed script.json
var script []byte

// siteMark is where script.json names the fixture site's address.
const siteMark = "{{SITE}}"

// Demo is a running demo: the copy and the stand-ins it talks to.
type Demo struct {
	// Dir is the copy of the sample workspace.
	Dir string
	// temp is the temporary folder the copy was made in, removed by
	// Close; "" when the person named the folder (--dir).
	temp string
	// trusted is the copy's root as its trust record names it, revoked
	// by Close; "" until the record is made.
	trusted string

	model  *canned.Model
	search *canned.Search
	site   *canned.Site
}

// Start copies the sample workspace into dir (a new temporary folder
// when dir is ""; otherwise dir must be missing or empty), starts the
// stand-ins on 127.0.0.1 and writes the copy's config.toml to use them.
// Close stops them and takes back the copy's trust; a temporary copy goes
// with them, one in a folder the person named stays for them to read.
func Start(dir string) (*Demo, error) {
	d := &Demo{}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "icm-demo-")
		if err != nil {
			return nil, fmt.Errorf("unable to make a folder for the demo: %w", err)
		}
		d.temp, dir = tmp, filepath.Join(tmp, "course-research")
	}
	dir, err := prepare(dir)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.Dir = dir
	if err := copySample(dir); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.start(); err != nil {
		d.Close()
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(d.config()), 0o644); err != nil {
		d.Close()
		return nil, fmt.Errorf("unable to write the demo's config.toml: %w", err)
	}
	root, err := grantTrust(dir)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.trusted = root
	return d, nil
}

// start starts the stand-ins: the site first, since the search results
// and the script name its address.
func (d *Demo) start() error {
	var err error
	if d.site, err = canned.StartSite(pages); err != nil {
		return err
	}
	d.search, err = canned.StartSearch(func(string) []canned.SearchResult {
		return []canned.SearchResult{
			{Title: "Install Ollama and pull a model", URL: d.site.Page(pathInstall), Content: "Install, start the server, pull a model.", Engine: "demo"},
			{Title: "Call the local chat API", URL: d.site.Page(pathAPI), Content: "POST /api/chat from any language.", Engine: "demo"},
		}
	})
	if err != nil {
		return err
	}
	sc, err := canned.ParseScript("script.json", []byte(strings.ReplaceAll(string(script), siteMark, d.site.URL())))
	if err != nil {
		return err
	}
	d.model, err = canned.StartModel(sc)
	return err
}

// ModelURL is the canned model server's address.
func (d *Demo) ModelURL() string { return d.model.URL() }

// Calls counts the model calls the canned server answered.
func (d *Demo) Calls() int { return d.model.Calls() }

// Temporary reports whether the copy is in a temporary folder, which
// Close removes.
func (d *Demo) Temporary() bool { return d.temp != "" }

// Close stops the stand-ins and revokes the copy's trust record (the
// servers it trusted are gone); it removes a temporary copy. A failure to
// revoke or remove leaves only what a demo left before, so it is not
// reported.
func (d *Demo) Close() {
	if d.trusted != "" {
		if store, err := trust.StoreFor(os.Getenv); err == nil {
			_, _ = store.Revoke(d.trusted)
		}
		d.trusted = ""
	}
	if d.temp != "" {
		_ = os.RemoveAll(d.temp)
		d.temp = ""
	}
	if d.model != nil {
		d.model.Close()
	}
	if d.search != nil {
		d.search.Close()
	}
	if d.site != nil {
		d.site.Close()
	}
}

// config is the copy's config.toml: the sample's settings, with the
// model, the search backend and the reader pointed at the stand-ins. The
// reader may read the fixture site's one address, and caches nothing.
func (d *Demo) config() string {
	return fmt.Sprintf(`# Written by icm demo for this copy of course-research: every server it
# names is a stand-in on 127.0.0.1 that icm demo started, with canned answers.

[model]
name = %q
base_url = %q
temperature = 0.1
think = false

[workflow]
gate = "explicit"
max_tool_calls = 24
parallel = 2

[mcp.servers.search-server]
command = "icm"
args = ["mcp", "search", "--searxng", %q]

[mcp.servers.browser-server]
command = "icm"
args = ["mcp", "browser", "--allow-host", %q, "--no-cache"]
`, Model, d.model.URL(), d.search.URL(), d.site.Host())
}

// prepare returns the folder to copy into, dir made absolute, when it is
// missing or empty.
func prepare(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return abs, nil
	case err != nil:
		return "", fmt.Errorf("unable to use %s for the demo: %w", abs, err)
	case len(entries) > 0:
		return "", fault.InvalidRequest(fmt.Sprintf("unable to use %s for the demo: it is not empty (give a new or empty folder, or none for a temporary one)", abs),
			"name a new or empty folder, or none for a temporary one")
	}
	return abs, nil
}

// copySample writes the sample workspace into dir, without any output a
// run left in the checkout the binary was built from.
func copySample(dir string) error {
	src := workspaces.CourseResearch()
	err := fs.WalkDir(src, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if isOutput(p) {
			return nil
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if e.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("unable to copy the sample workspace into %s: %w", dir, err)
	}
	return nil
}

// isOutput reports whether p (slash-separated, in the sample) is a file
// in a stage's output folder.
func isOutput(p string) bool {
	parts := strings.Split(p, "/")
	return len(parts) >= 4 && parts[0] == "pipeline" && parts[2] == "output" && path.Base(p) != "output"
}

// grantTrust records that icm trusts the copy for what it names (the
// record `icm trust` writes, in the user's config folder): it is icm's own
// demo, written from the embedded sample, and the servers it names are
// the stand-ins above. It holds while the demo runs (the editor may open
// the copy meanwhile); Close revokes it, since the stand-ins go with the
// demo. It returns the root the record names.
func grantTrust(dir string) (string, error) {
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		return "", fmt.Errorf("unable to open the demo's copy to trust it: %w", err)
	}
	defer ws.Close()
	store, err := trust.StoreFor(os.Getenv)
	if err != nil {
		return "", err
	}
	if _, err := store.Grant(ws.Root, trust.Of(ws, trust.Options{}), "icm demo (icm's own sample)", time.Now()); err != nil {
		return "", err
	}
	return ws.Root, nil
}
