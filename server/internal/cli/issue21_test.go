package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// Issue 21, item 1, at the command line: icm probe of a stage whose
// ## Tools names a tool server of an untrusted workspace started it (to
// count its tool definitions). It reads; it starts nothing.
func TestProbeStartsNoToolServerTheWorkspaceNames(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "it-ran")
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Cloned
-- config.toml --
[model]
name = "m"

[mcp.servers.helper]
command = "sh"
args = ["-c", "touch `+marker+`; sleep 30"]
-- pipeline/01-look/CONTEXT.md --
# Stage: 01-look

## Tools
helper: lookup

## Process
Look.

## Outputs
- look.md -> output/
`)
	out, errOut, code := runICM(t, "probe", "01-look", "--tokens", "-w", dir)
	if code != 0 {
		t.Fatalf("probe: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("icm probe ran the tool server the untrusted workspace names:\n%s", out)
	}
}

// Issue 21, item 2, at the command line: icm probe sent the value of the
// variable a workspace's api_key_env names, as a Bearer token, to the
// base_url it names (/v1/models, /tokenize). It contacts neither.
func TestProbeSendsNoKeyToTheServerTheWorkspaceNames(t *testing.T) {
	t.Setenv("SOMEONE_ELSES_TOKEN", trusttest.Secret)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	srv := trusttest.NewRecorder(t, "")
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Cloned
-- config.toml --
[model]
provider = "openai"
name = "some-model"
base_url = "`+srv.URL+`/v1"
api_key_env = "SOMEONE_ELSES_TOKEN"
context_length = 8192
-- pipeline/01-look/CONTEXT.md --
# Stage: 01-look

## Process
Look.

## Outputs
- look.md -> output/
`)
	out, errOut, code := runICM(t, "probe", "01-look", "--tokens", "-w", dir)
	if code != 0 {
		t.Fatalf("probe: exit %d\n%s%s", code, out, errOut)
	}
	if reqs := srv.Requests(); len(reqs) > 0 || srv.Keys() > 0 {
		t.Errorf("icm probe sent %d requests %v (%d with the key) to the server the untrusted workspace names", len(reqs), reqs, srv.Keys())
	}
}
