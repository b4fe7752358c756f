package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestItemWithoutStageIsABadRequest: `icm run --item 2` without --stage on
// a trusted workspace is a request missing an argument, and says so: the
// hint names the stage to add, nothing points at config.toml, and --json's
// error_kind is invalid-request. Before, the session took any plain error
// of the engine's setup for a bad config.toml: "hint: use "explicit" or
// "rerun"  see: config.toml", and error_kind "config-invalid".
func TestItemWithoutStageIsABadRequest(t *testing.T) {
	dir := wstest.Write(t, checkedStage)
	trusttest.Grant(t, dir)
	_, errOut, code := runAsUser(t, dir, down, "run", "--item", "2")
	if code == 0 {
		t.Fatal("a run of an item without its stage succeeded")
	}
	if !strings.Contains(errOut, "--item 2") || !strings.Contains(errOut, "hint: name the stage") {
		t.Errorf("the error does not say what is missing and what to do:\n%s", errOut)
	}
	if strings.Contains(errOut, "config.toml") || strings.Contains(errOut, `"explicit"`) {
		t.Errorf("the error blames config.toml:\n%s", errOut)
	}
	out, _, _ := runAsUser(t, dir, down, "run", "--item", "2", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		ErrorKind string `json:"error_kind"`
		Hint      string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("the last line of stdout is not JSON (%v):\n%s", err, out)
	}
	if last.ErrorKind != "invalid-request" || strings.Contains(last.Hint, "explicit") {
		t.Errorf("--json says %+v, want error_kind invalid-request", last)
	}
}
