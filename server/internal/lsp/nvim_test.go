package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/need"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestNeovimClient runs icm lsp under Neovim, a real LSP client icm did not
// write, headless: diagnostics and a hover must reach it.
func TestNeovimClient(t *testing.T) {
	nvim := need.Program(t, "nvim")
	dir := wstest.Copy(t, "course-research")
	contract := filepath.Join(dir, filepath.FromSlash(scope))
	src, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	// The seeded error: an input that does not exist.
	if err := os.WriteFile(contract, []byte(strings.Replace(string(src), "input.md", "gone.md", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "result.json")
	script, err := filepath.Abs(filepath.Join("testdata", "nvim", "check.lua"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ICM_BIN="+icmBin, "ICM_ROOT="+dir, "ICM_FILE="+contract, "ICM_OUT="+out, "HOME="+t.TempDir())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v", err)
	}
	var res struct {
		Diagnostics []struct {
			Code    string
			Message string
			Line    int
		}
		Hover    string
		Errors   []string
		ExitCode *int `json:"exit_code"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	if len(res.Errors) > 0 {
		t.Errorf("errors in nvim: %v", res.Errors)
	}
	found := false
	for _, d := range res.Diagnostics {
		if d.Code == "input-missing" && strings.Contains(d.Message, "gone.md") && d.Line == 5 {
			found = true
		}
	}
	if !found {
		t.Errorf("nvim did not get the input-missing diagnostic on line 6: %+v", res.Diagnostics)
	}
	if !strings.Contains(res.Hover, "**01-scope**") || !strings.Contains(res.Hover, "| part | layer | role | tokens |") {
		t.Errorf("nvim hover = %q", res.Hover)
	}
	if res.ExitCode == nil || *res.ExitCode != 0 {
		t.Errorf("icm lsp exit code under nvim = %v, want 0 (shutdown, then exit)", res.ExitCode)
	}
}
