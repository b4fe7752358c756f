package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestTheStartCountOfAStageWithIcmsOwnToolsIsExact: icm's own tool
// servers' definitions are known without starting them, so the count a
// run shows as it starts a stage that uses only them (02-research: icm's
// search and reader servers) is complete, and equal to the count with
// the servers started and listed. Before, every stage with tools was
// counted without their definitions and shown as an estimate.
func TestTheStartCountOfAStageWithIcmsOwnToolsIsExact(t *testing.T) {
	trusttest.ConfigDir(t)
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}, Tokenize: ollamatest.TokenizeVLLM})
	dir := wstest.Copy(t, "course-research")
	cfg := filepath.Join(dir, "config.toml")
	old, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(old), "[model]\nname = \"qwen3.5:9b\"\n", "[model]\nprovider = \"openai\"\nbase_url = \""+srv.URL()+"/v1\"\nname = \"tiny\"\ncontext_length = 32768\n", 1)
	if text == string(old) {
		t.Fatal("the sample's [model] is not as this test expects")
	}
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pipeline/01-scope/output"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pipeline/01-scope/output/objectives.md"), []byte("1. Install a local model server.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trusttest.Grant(t, dir)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Open(ws, Options{Self: icmBin})
	t.Cleanup(s.Close)
	st, err := ws.Stage("02-research")
	if err != nil {
		t.Fatal(err)
	}
	src, err := ws.Files.ReadFile(st.Contract)
	if err != nil {
		t.Fatal(err)
	}
	c := contract.ParseWith(st.Contract, src, contract.Options{Vars: ws.Vars})
	n, _, complete := s.Counts().firstCalls(context.Background(), st, c, "tiny")
	if !complete || !n.Known() {
		t.Fatalf("the start count of 02-research is complete=%v, %+v", complete, n)
	}
	started, err := s.Counts().Stage(context.Background(), ws, st, c, assemble.Options{}, nil, s.startingLister(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(started.ToolsLeftOut) != 0 || started.ToolDefs == 0 {
		t.Fatalf("the count with the servers started left out %v (%d definitions)", started.ToolsLeftOut, started.ToolDefs)
	}
	if n.Tokens != started.Total.Tokens {
		t.Errorf("the start count is %d tokens, the count with the servers started %d", n.Tokens, started.Total.Tokens)
	}
	if !strings.Contains(string(src), "search-server") {
		t.Fatal("02-research no longer names icm's search server")
	}
}
