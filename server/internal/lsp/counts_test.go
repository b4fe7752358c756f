package lsp_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

// TestHoverCountsToolDefinitions: a stage with tools is counted with the
// definitions its servers list, in the first call and the token table.
func TestHoverCountsToolDefinitions(t *testing.T) {
	s := newSession(t)
	s.Open(scope)
	s.Open(research)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	// Hovering the servers waits for their listings, which bring a new
	// analysis; the title's hover waits for that one.
	for _, server := range []string{"search-server", "browser-server"} {
		if _, err := s.Hover(research, s.Pos(research, server, 0)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Hover(research, s.Pos(research, "# Stage", 2))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`First call: (\d+) tokens, estimated, of which 5 tool definitions take (\d+)`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("the first call does not count the 5 tool definitions:\n%s", got)
	}
	first, _ := strconv.Atoi(m[1])
	defs, _ := strconv.Atoi(m[2])
	ctx := regexp.MustCompile(`~(\d+) tokens \(system`).FindStringSubmatch(got)
	total, _ := strconv.Atoi(ctx[1])
	if defs < 500 || first < total+defs {
		t.Errorf("first call %d, tool definitions %d, context %d: the definitions are not counted on top", first, defs, total)
	}
	for _, want := range []string{"| tool definitions (5 tools, estimated) | tools | system | " + m[2] + " |", "| **first call as the server sees it** (estimated) | | | **" + m[1] + "** |"} {
		if !strings.Contains(got, want) {
			t.Errorf("the token table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Counted without") {
		t.Errorf("nothing should be left out:\n%s", got)
	}
}

// TestHoverSaysWhichToolsAreLeftOut: a server that cannot be listed is
// left out of the count, and the hover says so and why.
func TestHoverSaysWhichToolsAreLeftOut(t *testing.T) {
	s := newSession(t, func(c *lsptest.Config) { c.Options.Self = filepath.Join(t.TempDir(), "no-icm-here") })
	s.Open(scope)
	s.Open(research)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	for _, server := range []string{"search-server", "browser-server"} {
		if _, err := s.Hover(research, s.Pos(research, server, 0)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Hover(research, s.Pos(research, "# Stage", 2))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"⚠ Counted without the tool definitions of browser-server: ", "; search-server: "} {
		if !strings.Contains(got, want) {
			t.Errorf("hover lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "tool definitions take") || strings.Contains(got, "not listed yet") {
		t.Errorf("no definitions can be counted, and the listing has failed by now:\n%s", got)
	}
}
