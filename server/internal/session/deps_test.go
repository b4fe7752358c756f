package session

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontEndsImportOnlyTheSession: the CLI, the language server (its
// snapshot package too) and the workspace MCP server reach models, tools,
// runs, stage tests, history and tracing only through this package. Importing the engine's packages themselves is how
// a front end starts composing clients or reading history on its own, and
// how the two drift apart (issue 22).
func TestFrontEndsImportOnlyTheSession(t *testing.T) {
	const mod = icmPrefix
	for _, front := range frontEnds {
		out, err := exec.CommandContext(t.Context(), "go", "list", "-f", `{{join .Imports "\n"}}`, "../"+front).Output()
		if err != nil {
			t.Fatal(err)
		}
		imports := strings.Fields(string(out))
		if len(imports) == 0 {
			t.Fatalf("go list found no imports of %s", front)
		}
		for _, imp := range imports {
			for _, b := range enginePackages {
				if imp == mod+b {
					t.Errorf("%s imports %s: call the session for it", front, imp)
				}
			}
		}
	}
}

// TestProtocolLibrariesStayAtTheEdges: LSP and JSON-RPC are the language
// server's business, MCP the MCP client's (tools, and toolbox, which lists
// icm's own servers in process), icm's own MCP servers' and the command
// that serves them (cli). No other package of icm imports
// them, so the engine and the domain packages are the same whichever front
// end calls them.
func TestProtocolLibrariesStayAtTheEdges(t *testing.T) {
	const mod = "github.com/icm-tool/icm/server/internal/"
	allowed := map[string][]string{
		"github.com/tliron/glsp":          {"lsp"},
		"github.com/sourcegraph/jsonrpc2": {"lsp"},
		"github.com/mark3labs/mcp-go":     {"tools", "toolbox", "mcpserver", "wsmcp", "cli"},
	}
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 20 {
		t.Fatalf("go list found %d packages", len(lines))
	}
	for _, line := range lines {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		if strings.HasPrefix(pkg, "testutil/") {
			continue // test helpers drive the protocols as clients
		}
		for _, imp := range f[1:] {
			for lib, owners := range allowed {
				if imp != lib && !strings.HasPrefix(imp, lib+"/") {
					continue
				}
				ok := false
				for _, o := range owners {
					ok = ok || pkg == o || strings.HasPrefix(pkg, o+"/")
				}
				if !ok {
					t.Errorf("%s imports %s, which belongs to %v", pkg, imp, owners)
				}
			}
		}
	}
}

// TestTheDataPackageLinksNoEngine: package report is what the engine
// produces and the front ends render, so it sits below both: nothing it
// imports, directly or not, is the engine or the session. Otherwise a
// front end importing report would link the engine after all.
func TestTheDataPackageLinksNoEngine(t *testing.T) {
	const mod = icmPrefix
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "../report").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 5 {
		t.Fatalf("go list found %d dependencies of report", len(deps))
	}
	for _, d := range deps {
		for _, b := range append([]string{"session"}, enginePackages...) {
			if d == mod+b {
				t.Errorf("report links %s", d)
			}
		}
	}
}
