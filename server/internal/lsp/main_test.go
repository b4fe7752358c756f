package lsp_test

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/fault/faulttest"
	"github.com/icm-tool/icm/server/internal/testutil/gobin"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// icmBin is the icm executable, built once: the stdio tests and Neovim run
// it, and the workspaces' `command = "icm"` MCP servers run it.
var icmBin string

// fixtureBin is a test MCP server (tools echo, add, ...).
var fixtureBin string

func TestMain(m *testing.M) {
	// Every request, command and error path of the server runs here: none
	// may answer with an error that nobody gave a kind.
	gobin.Main(m, map[*string]string{&icmBin: "github.com/icm-tool/icm/server/cmd/icm",
		&fixtureBin: "github.com/icm-tool/icm/server/internal/tools/mcpfixture/cmd/mcpfixture"},
		faulttest.NoneInternal)
}

// session opens a copy of course-research, trusted as `icm trust` would
// (its config.toml names a search address and icm's own servers), in a
// fresh server whose model server is a scripted one on loopback.
type session struct {
	*lsptest.Editor
	dir    string
	ollama *ollamatest.Server
}

func newSession(t *testing.T, opts ...func(*lsptest.Config)) *session {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 8192}}, AllowUnscripted: true})
	dir := wstest.Copy(t, "course-research")
	trusttest.Grant(t, dir)
	cfg := lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": srv.URL()}}
	cfg.Options.Self = icmBin
	for _, o := range opts {
		o(&cfg)
	}
	return &session{Editor: lsptest.Start(t, cfg), dir: dir, ollama: srv}
}
