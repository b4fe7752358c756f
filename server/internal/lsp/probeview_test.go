package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// The assembled context of a template stage, as the editor shows it, holds
// what `icm probe` assembles: the identity file and every input that exists.
func TestProbeOfATemplateStageLoadsItsInputs(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 8192}}, AllowUnscripted: true})
	// Read in place: the editor's analysis and a probe write nothing.
	root := filepath.Join(wstest.TemplateFixtures(t), "research-pipeline-new")
	cfg := lsptest.Config{Root: root, InitOptions: map[string]any{"ollamaHost": srv.URL()}}
	cfg.Options.Self = icmBin
	ed := lsptest.Start(t, cfg)
	contract := "stages/05-output/CONTEXT.md"
	ed.Open(contract)
	ed.AwaitDiagnostics(contract, "analysed", func([]lsptest.Diagnostic) bool { return true })
	raw, err := ed.ExecuteCommand("icm.probe", map[string]any{"workspace": root, "stage": "05-output"})
	if err != nil {
		t.Fatal(err)
	}
	var pr struct{ Content string }
	if err := json.Unmarshal(raw, &pr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| CLAUDE.md | 0 |", "| brand-vault.md | 3 |"} {
		if !strings.Contains(pr.Content, want) {
			t.Errorf("the context has no row %q:\n%s", want, pr.Content)
		}
	}
	if strings.Contains(pr.Content, "brand-vault.md *(missing)*") {
		t.Errorf("brand-vault.md, which exists, reads missing:\n%s", pr.Content)
	}
}
