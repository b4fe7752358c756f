package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestAnUnreadableConfigMakesNoServerUnknown: while config.toml cannot be
// read (a value half typed), icm does not know which tool servers it
// names, so a stage naming one gets no "no MCP server is configured"
// error: the one certain finding is config.toml's own. Before, every
// server a stage named was reported missing ("known: none").
func TestAnUnreadableConfigMakesNoServerUnknown(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	cfg := filepath.Join(dir, "config.toml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), `gate = "explicit"`, "gate = ", 1)
	if broken == string(data) {
		t.Fatal("the sample's gate line is not as this test expects")
	}
	if err := os.WriteFile(cfg, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := open(t, dir)
	if ws.ConfigErr == nil {
		t.Fatal("the broken config.toml was read")
	}
	rep := Run(ws, Options{Servers: map[string]bool{}})
	config := 0
	for _, f := range rep.Findings {
		if f.Code == contract.CodeUnknownServer {
			t.Errorf("%s: %s", f.File, f.Message)
		}
		if filepath.Base(f.File) == "config.toml" && f.Severity == contract.Error {
			config++
		}
	}
	if config == 0 {
		t.Error("config.toml's own error is missing")
	}
}
