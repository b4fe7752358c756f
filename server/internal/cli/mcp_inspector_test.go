package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/need"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// InspectorVersion is the MCP Inspector release the interoperability test
// drives; .ci/run installs the same one.
const inspectorVersion = "2.12.0"

// inspector returns the MCP Inspector's launcher in $CACHE_DIR/inspector
// (default ~/.cache/icm-dev), where `make mcp-inspector` installs it.
func inspector(t *testing.T) string {
	t.Helper()
	need.Program(t, "node")
	cache := os.Getenv("CACHE_DIR")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".cache", "icm-dev")
	}
	dir := filepath.Join(cache, "inspector")
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "package.json")
	if b, err := os.ReadFile(pkg); err != nil || !strings.Contains(string(b), `"version": "`+inspectorVersion+`"`) {
		need.Missing(t, "the MCP Inspector "+inspectorVersion, "it is not installed in "+dir+"; `make mcp-inspector` installs it (.ci/run does)")
	}
	return filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
}

// buildICM builds the icm binary into a temporary folder.
func buildICM(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "icm")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", exe, "github.com/icm-tool/icm/server/cmd/icm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}

// inspect runs the Inspector's CLI mode against `icm server...` and
// decodes its JSON answer.
func inspect(t *testing.T, bin string, server []string, method ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	args := append(append([]string{"--cli"}, server...), method...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errb.String())
	}
	// The launcher passes the server's stderr (our logs) through; the
	// answer is the JSON document on stdout.
	s := out.String()
	start := strings.Index(s, "{")
	if start < 0 {
		t.Fatalf("inspector printed no JSON:\n%s\nstderr:\n%s", s, errb.String())
	}
	var v map[string]any
	if err := json.NewDecoder(strings.NewReader(s[start:])).Decode(&v); err != nil {
		t.Fatalf("inspector output is not JSON: %v\n%s", err, s)
	}
	return v
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func toolNames(t *testing.T, list map[string]any) []string {
	t.Helper()
	var names []string
	tools, _ := list["tools"].([]any)
	for _, tl := range tools {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

func callText(t *testing.T, res map[string]any) (string, bool) {
	t.Helper()
	var sb strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if txt, ok := c.(map[string]any)["text"].(string); ok {
			sb.WriteString(txt)
		}
	}
	isErr, _ := res["isError"].(bool)
	return sb.String(), isErr
}

// TestMCPInspectorInterop drives icm's servers with an MCP client we did
// not write: the official MCP Inspector in CLI mode. The workspace
// server's resources, prompts and tools are listed, a stage's context is
// read (the bytes icm probe --json prints) and status is called.
func TestMCPInspectorInterop(t *testing.T) {
	bin := inspector(t)
	icm := buildICM(t)
	fake := fakesearx.New(t, nil)
	site := sites.New(t)

	t.Run("search", func(t *testing.T) {
		srv := []string{icm, "mcp", "search", "--searxng", fake.URL}
		if names := toolNames(t, inspect(t, bin, srv, "--method", "tools/list")); strings.Join(names, ",") != "search" {
			t.Fatalf("tools = %v", names)
		}
		res := inspect(t, bin, srv, "--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=icm workspaces", "--tool-arg", "max_results=3")
		text, isErr := callText(t, res)
		if isErr || !strings.Contains(text, "[3] Result 3 for icm workspaces") || strings.Contains(text, "[4]") {
			t.Fatalf("search result (isError %v):\n%s", isErr, text)
		}
		if q := fake.Queries(); len(q) == 0 || q[len(q)-1] != "icm workspaces" {
			t.Fatalf("fake SearXNG saw %q", q)
		}
	})
	t.Run("workspace", func(t *testing.T) {
		dir := wstest.Copy(t, "course-research")
		srv := []string{"-e", "ICM_CONFIG_DIR=" + t.TempDir(), icm, "mcp", "workspace", dir}
		names := toolNames(t, inspect(t, bin, srv, "--method", "tools/list"))
		if !sameSet(names, []string{"status", "check", "probe", "next", "run_stage", "submit_outputs", "request_review"}) {
			t.Fatalf("tools = %v", names)
		}
		resources := inspect(t, bin, srv, "--method", "resources/list")
		var uris []string
		for _, r := range resources["resources"].([]any) {
			uris = append(uris, r.(map[string]any)["uri"].(string))
		}
		for _, want := range []string{"icm://01-scope/contract", "icm://01-scope/context", "icm://01-scope/outputs", "icm://04-draft/context"} {
			if !slices.Contains(uris, want) {
				t.Errorf("resources/list lacks %s: %v", want, uris)
			}
		}
		prompts := inspect(t, bin, srv, "--method", "prompts/list")
		var pnames []string
		for _, p := range prompts["prompts"].([]any) {
			pnames = append(pnames, p.(map[string]any)["name"].(string))
		}
		if !sameSet(pnames, []string{"01-scope", "02-research", "03-outline", "04-draft"}) {
			t.Errorf("prompts = %v", pnames)
		}
		read := inspect(t, bin, srv, "--method", "resources/read", "--uri", "icm://01-scope/context")
		contents, _ := read["contents"].([]any)
		if len(contents) != 1 {
			t.Fatalf("resources/read: %v", read)
		}
		text, _ := contents[0].(map[string]any)["text"].(string)
		probe, _, code := runICM(t, "probe", "--json", "-w", dir, "01-scope")
		if code != 0 || text != probe {
			t.Errorf("the context the Inspector read is not icm probe --json's (exit %d):\n%s\n---\n%s", code, text, probe)
		}
		res := inspect(t, bin, srv, "--method", "tools/call", "--tool-name", "status")
		status, isErr := callText(t, res)
		if isErr || !strings.Contains(status, "01-scope: pending") || !strings.Contains(status, "Next: 01-scope ready to run") {
			t.Fatalf("status (isError %v):\n%s", isErr, status)
		}
	})
	t.Run("browser", func(t *testing.T) {
		srv := []string{icm, "mcp", "browser", "--no-cache", "--allow-host", "127.0.0.1"}
		names := toolNames(t, inspect(t, bin, srv, "--method", "tools/list"))
		if strings.Join(names, ",") != "extract,fetch_snippet,fetch_structure,fetch_urls,summarize" {
			t.Fatalf("tools = %v", names)
		}
		res := inspect(t, bin, srv, "--method", "tools/call", "--tool-name", "fetch_structure", "--tool-arg", "url="+site.Page(sites.PathNested))
		text, isErr := callText(t, res)
		if isErr || !strings.Contains(text, sites.NestedOutline) {
			t.Fatalf("fetch_structure result (isError %v):\n%s", isErr, text)
		}
		if site.Hits(sites.PathNested) == 0 {
			t.Fatalf("the fixture site was never read")
		}
	})
}
