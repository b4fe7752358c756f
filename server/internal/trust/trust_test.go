package trust_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/usersettings"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// named is a workspace that names one of everything trust covers.
const named = `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "m"
base_url = "https://models.example.test/v1"
api_key_env = "MODEL_KEY"

[mcp.servers.local]
command = "sh"
args = ["-c", "echo {{GREETING}} > marker"]
env = { MODE = "fast" }

[mcp.servers.search-server]
command = "icm"
args = ["mcp", "search", "--searxng", "http://127.0.0.1:8090"]
-- .vscode/mcp.json --
{
  "servers": {
    "remote": {"type": "http", "url": "https://mcp.example.test/mcp", "headers": {"Authorization": "Bearer ${env:REMOTE_TOKEN}"}},
    "local": {"command": "ignored-because-config.toml-wins"}
  }
}
-- .mcp.json --
{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs-server", "${workspaceFolder}"], "env": {"TOKEN": "${env:FS_TOKEN}"}}}}
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write.

## Verify
- run: ./check.sh output/a.md

## Outputs
- a.md -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Script
make site

## Outputs
- b.md -> output/
`

func open(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func TestPartsListWhatTheWorkspaceNames(t *testing.T) {
	ws := open(t, wstest.Write(t, named))
	got := map[string]bool{}
	for _, p := range trust.Of(ws, trust.Options{}) {
		got[p.String()] = true
	}
	want := []string{
		// config.toml is icm's own file: a run starts its commands as
		// written, so trust lists them so ({{...}} is not filled there).
		"run MODE=fast sh -c 'echo {{GREETING}} > marker' (config.toml [mcp.servers.local])",
		"run icm mcp search --searxng http://127.0.0.1:8090 (config.toml [mcp.servers.search-server])",
		"contact http://127.0.0.1:8090 (config.toml [mcp.servers.search-server] args)",
		"run TOKEN=${env:FS_TOKEN} npx -y fs-server ${workspaceFolder} (.mcp.json mcpServers.fs)",
		"read FS_TOKEN, passed to tool server \"fs\" (.mcp.json mcpServers.fs)",
		"contact https://mcp.example.test/mcp (headers Authorization) (.vscode/mcp.json servers.remote)",
		"read REMOTE_TOKEN, sent to https://mcp.example.test/mcp (.vscode/mcp.json servers.remote)",
		"contact https://models.example.test/v1 (config.toml [model] base_url)",
		"read MODEL_KEY, sent to https://models.example.test/v1 (config.toml [model] api_key_env)",
		"run ./check.sh output/a.md (pipeline/01-a/CONTEXT.md ## Verify)",
		"run make site (pipeline/02-b/CONTEXT.md ## Script)",
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing %q", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d parts, want %d: %v", len(got), len(want), got)
	}
}

func TestAWorkspaceThatNamesNothingNeedsNoTrust(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "m"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write.

## Verify
- non-empty

## Outputs
- a.md -> output/
`)
	ws := open(t, dir)
	parts := trust.Of(ws, trust.Options{})
	if len(parts) != 0 {
		t.Fatalf("parts = %v", parts)
	}
	d := trust.Decide(ws.Root, parts, trust.Inputs{Store: trust.Store{Dir: t.TempDir()}})
	if d.State != trust.NotNeeded || !d.Allowed() || d.Needed() {
		t.Errorf("decision = %+v", d)
	}
	// Restricted Mode is read-only whatever the workspace names: it is
	// decided before whether trust is needed at all.
	d = trust.Decide(ws.Root, parts, trust.Inputs{Store: trust.Store{Dir: t.TempDir()}, Restricted: true, Explicit: true})
	if d.State != trust.Restricted || d.Allowed() || d.Needed() {
		t.Errorf("restricted, the decision is %+v", d)
	}
}

func TestPartsAreTheSameInACopyElsewhere(t *testing.T) {
	a := wstest.Write(t, named)
	b := wstest.Write(t, named)
	if ha, hb := trust.Of(open(t, a), trust.Options{}).Hash(), trust.Of(open(t, b), trust.Options{}).Hash(); ha != hb {
		t.Errorf("two copies hash %s and %s", ha, hb)
	}
}

func TestGrantThenChangeSaysWhatChanged(t *testing.T) {
	dir := wstest.Write(t, named)
	store := trust.Store{Dir: t.TempDir()}
	ws := open(t, dir)
	parts := trust.Of(ws, trust.Options{})
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store}); d.State != trust.Untrusted || d.Allowed() {
		t.Fatalf("before any grant: %+v", d)
	}
	if _, err := store.Grant(dir, parts, "icm trust", time.Now()); err != nil {
		t.Fatal(err)
	}
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store}); d.State != trust.Trusted || !d.Allowed() {
		t.Fatalf("after the grant: %+v", d)
	}
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store, Restricted: true}); d.Allowed() || d.State != trust.Restricted {
		t.Errorf("Restricted Mode raised nothing, but: %+v", d)
	}
	// The trusted command changes, and a new Script appears.
	cfg := filepath.Join(dir, "config.toml")
	src, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(src), "> marker", "> elsewhere", 1)), 0o644)
	ws2 := open(t, dir)
	d := trust.Decide(dir, trust.Of(ws2, trust.Options{}), trust.Inputs{Store: store})
	if d.State != trust.Changed || d.Allowed() {
		t.Fatalf("after the change: %+v", d)
	}
	s := d.Summary()
	for _, w := range []string{"config.toml [mcp.servers.local] changed", "> marker", "> elsewhere"} {
		if !strings.Contains(s, w) {
			t.Errorf("summary lacks %q: %s", w, s)
		}
	}
	// Naming less is no reason to untrust.
	less := parts[:len(parts)-1]
	if d := trust.Decide(dir, less, trust.Inputs{Store: store}); d.State != trust.Trusted {
		t.Errorf("with one part fewer: %+v", d)
	}
}

func TestExplicitAndInheritedTrust(t *testing.T) {
	dir := wstest.Write(t, named)
	parts := trust.Of(open(t, dir), trust.Options{})
	store := trust.Store{Dir: t.TempDir()}
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store, Explicit: true}); !d.Allowed() || d.By != "--trust" {
		t.Errorf("--trust: %+v", d)
	}
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store, Inherited: parts.Hash()}); !d.Allowed() {
		t.Errorf("inherited: %+v", d)
	}
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store, Inherited: "0123"}); d.Allowed() {
		t.Errorf("an inherited hash of other parts trusted it: %+v", d)
	}
	if entries, _ := os.ReadDir(store.Dir); len(entries) != 0 {
		t.Errorf("an explicit decision wrote %v", entries)
	}
}

// A record that cannot be read is untrusted with a note, never a crash
// or an allocation.
func TestBadRecordsAreUntrustedWithANote(t *testing.T) {
	dir := wstest.Write(t, named)
	parts := trust.Of(open(t, dir), trust.Options{})
	store := trust.Store{Dir: t.TempDir()}
	if _, err := store.Grant(dir, parts, "icm trust", time.Now()); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(store.Dir)
	if len(entries) != 1 {
		t.Fatalf("%d record files", len(entries))
	}
	file := filepath.Join(store.Dir, entries[0].Name())
	good, _ := os.ReadFile(file)
	for _, c := range []struct {
		name, note string
		write      func()
	}{
		{"corrupt", "not icm's", func() { os.WriteFile(file, []byte("{\"version\": 1, \"parts\": [tru"), 0o600) }},
		{"edited by hand", "changed by hand", func() {
			os.WriteFile(file, []byte(strings.Replace(string(good), "make site", "make evil", 1)), 0o600)
		}},
		{"an older icm's", "written by an older icm, which did not pin the files the workspace's commands run: look at the list again and trust it once more", func() {
			os.WriteFile(file, []byte(strings.Replace(string(good), `"version": 2`, `"version": 1`, 1)), 0o600)
		}},
		{"oversize", "unreadable", func() {
			f, _ := os.Create(file)
			f.Truncate(64 << 20)
			f.Close()
		}},
		{"not a regular file", "unreadable", func() {
			os.Remove(file)
			os.Mkdir(file, 0o700)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(file)
			c.write()
			d := trust.Decide(dir, parts, trust.Inputs{Store: store})
			if d.Allowed() || d.State != trust.Untrusted || !strings.Contains(d.Note, c.note) {
				t.Errorf("decision = %s %q", d.State, d.Note)
			}
			if !strings.Contains(d.Summary(), c.note) {
				t.Errorf("summary lacks the note: %s", d.Summary())
			}
		})
	}
}

func TestGrantIsAtomicAndPrivate(t *testing.T) {
	dir := wstest.Write(t, named)
	parts := trust.Of(open(t, dir), trust.Options{})
	store := trust.Store{Dir: filepath.Join(t.TempDir(), "trusted")}
	for i := 0; i < 3; i++ {
		if _, err := store.Grant(dir, parts, "icm trust", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(store.Dir)
	if len(entries) != 1 {
		t.Errorf("files after three grants: %v (a temporary file was left)", entries)
	}
	info, _ := os.Stat(filepath.Join(store.Dir, entries[0].Name()))
	if info.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v", info.Mode().Perm())
	}
	if dinfo, _ := os.Stat(store.Dir); dinfo.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", dinfo.Mode().Perm())
	}
	if ok, err := store.Revoke(dir); !ok || err != nil {
		t.Errorf("revoke: %v %v", ok, err)
	}
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store}); d.Allowed() {
		t.Error("trusted after revoking")
	}
}

func TestCarryTrustsTheCopyUntilUndone(t *testing.T) {
	orig := wstest.Write(t, named)
	cp := wstest.Write(t, named)
	store := trust.Store{Dir: t.TempDir()}
	parts := trust.Of(open(t, orig), trust.Options{})
	store.Grant(orig, parts, "icm trust", time.Now())
	d := trust.Decide(orig, parts, trust.Inputs{Store: store})
	undo, err := store.Carry(d, cp, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cparts := trust.Of(open(t, cp), trust.Options{})
	if dc := trust.Decide(cp, cparts, trust.Inputs{Store: store}); !dc.Allowed() || !strings.Contains(dc.By, "a copy of "+d.Root) {
		t.Errorf("the copy: %+v", dc)
	}
	undo()
	if dc := trust.Decide(cp, cparts, trust.Inputs{Store: store}); dc.Allowed() {
		t.Error("the copy is still trusted after undo")
	}
	// An untrusted original gives the copy nothing.
	other := trust.Store{Dir: t.TempDir()}
	du := trust.Decide(orig, parts, trust.Inputs{Store: other})
	if _, err := other.Carry(du, cp, time.Now()); err != nil {
		t.Fatal(err)
	}
	if dc := trust.Decide(cp, cparts, trust.Inputs{Store: other}); dc.Allowed() {
		t.Error("an untrusted original's copy is trusted")
	}
}

func TestStoreForUsesICMConfigDir(t *testing.T) {
	dir := t.TempDir()
	s, err := trust.StoreFor(func(k string) string {
		if k == usersettings.ConfigDirEnv {
			return dir
		}
		return ""
	})
	if err != nil || s.Dir != filepath.Join(dir, "trusted") {
		t.Errorf("store %q, %v", s.Dir, err)
	}
	if _, err := trust.StoreFor(func(k string) string {
		if k == usersettings.ConfigDirEnv {
			return "relative/dir"
		}
		return ""
	}); err == nil {
		t.Error("a relative ICM_CONFIG_DIR was accepted")
	}
}

func TestPrintableShowsHiddenCharacters(t *testing.T) {
	in := "sh -c 'curl x'\r\x1b[2K\u202eok\nnext\tline"
	if got, want := trust.Printable(in), `sh -c 'curl x'\x0d\x1b[2K\u202eok`+"\nnext\tline"; got != want {
		t.Errorf("Printable = %q, want %q", got, want)
	}
}

// FuzzLoadRecord: whatever a record file holds, deciding never panics,
// and only a record icm wrote for this path, with parts that match its
// hash and cover the workspace, trusts it.
func FuzzLoadRecord(f *testing.F) {
	dir := f.TempDir()
	parts := trust.Parts{{Kind: trust.Command, Where: "config.toml [mcp.servers.x]", Value: "sh -c true"}}
	store := trust.Store{Dir: filepath.Join(f.TempDir(), "trusted")}
	if _, err := store.Grant(dir, parts, "icm trust", time.Unix(0, 0)); err != nil {
		f.Fatal(err)
	}
	entries, _ := os.ReadDir(store.Dir)
	file := filepath.Join(store.Dir, entries[0].Name())
	good, _ := os.ReadFile(file)
	f.Add(good)
	f.Add([]byte(`{"version": 1, "path": "` + dir + `", "hash": "", "parts": null}`))
	f.Add([]byte(`{"version": 2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		d := trust.Decide(dir, parts, trust.Inputs{Store: store})
		if d.Allowed() && (d.Record == nil || d.Record.Path != trust.RealPath(dir) || d.Record.Parts.Hash() != d.Record.Hash) {
			t.Errorf("trusted by a record that is not a grant for it: %+v", d.Record)
		}
	})
}

// TestCommandsAreFoundWhateverTheCase: a contract is read for its
// commands only when its text may name one, and one that does is found
// however it spells the heading or the check.
func TestCommandsAreFoundWhateverTheCase(t *testing.T) {
	ws := open(t, wstest.Write(t, `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## SCRIPT
make all

## Outputs
- a.md -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Process
Write about running.

## Verify
- Run: make check
-- pipeline/03-c/CONTEXT.md --
# Stage: 03-c

## Process
Write about running the site.

## Verify
- non-empty
`))
	var got []string
	for _, p := range trust.Of(ws, trust.Options{}) {
		got = append(got, p.String())
	}
	want := []string{"run make all (pipeline/01-a/CONTEXT.md ## Script)", "run make check (pipeline/02-b/CONTEXT.md ## Verify)"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("parts %q, want %q", got, want)
	}
}

// What trust lists for a Script stage is the command a run starts, with
// [vars] filled in as the run fills them, and a change of a value is a
// change of what was trusted.
func TestScriptsAreListedWithTheirVariablesFilled(t *testing.T) {
	files := func(target string) string {
		return `
-- CLAUDE.md --
# Notes
-- config.toml --
[vars]
TARGET = "` + target + `"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Script
make {{TARGET}}

## Outputs
- a.md -> output/
`
	}
	ws := open(t, wstest.Write(t, files("site")))
	parts := trust.Of(ws, trust.Options{})
	if len(parts) != 1 || parts[0].Value != "make site" {
		t.Fatalf("parts = %v", parts)
	}
	other := trust.Of(open(t, wstest.Write(t, files("clean"))), trust.Options{})
	if parts.Hash() == other.Hash() {
		t.Error("a changed [vars] value left the hash as it was")
	}
}
