package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// stageStatus reads one stage's status and whether its output counts as edited.
func stageStatus(t *testing.T, dir string, vars map[string]string, stage string) (string, bool) {
	t.Helper()
	out, errOut, err := runIn(t, dir, vars, "status", "--json")
	if err != nil {
		t.Fatalf("status: %v\n%s%s", err, out, errOut)
	}
	var p struct {
		Stages []struct {
			Stage  string `json:"stage"`
			Status string `json:"status"`
			Reason string `json:"reason"`
			Edited bool   `json:"edited"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	for _, s := range p.Stages {
		if s.Stage == stage {
			return s.Status + " (" + s.Reason + ")", s.Edited
		}
	}
	t.Fatalf("no stage %s in %s", stage, out)
	return "", false
}

// Case 14: an output whose file name is not valid UTF-8 round-trips
// through the run record: right after the run the stage awaits review
// (not stale, not edited), and approving it makes it approved.
func TestNonUTF8FileNameRoundTrips(t *testing.T) {
	dir := newWS(t, `
-- CLAUDE.md --
# Identity
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Script
printf 'x\n' > "$ICM_OUTPUT/$(printf 'caf\351').md"

## Outputs
- [page].md -> output/
`)
	trusttest.Grant(t, dir)
	if o, e, err := runIn(t, dir, nil, "run"); err != nil {
		t.Fatalf("run: %v\n%s%s", err, o, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline/01-a/output/caf\xe9.md")); err != nil {
		t.Fatalf("the script's output is not there: %v", err)
	}
	if st, edited := stageStatus(t, dir, nil, "01-a"); !strings.HasPrefix(st, "awaiting-review") || edited {
		t.Errorf("after the run: %s, edited %v; want awaiting-review, not edited", st, edited)
	}
	if o, e, err := runIn(t, dir, nil, "approve", "01-a"); err != nil {
		t.Fatalf("approve: %v\n%s%s", err, o, e)
	}
	if st, _ := stageStatus(t, dir, nil, "01-a"); !strings.HasPrefix(st, "approved") {
		t.Errorf("after approve: %s, want approved", st)
	}
}

// Case 15: a folder input (grammar.md: "a path naming a folder loads every
// file in it") runs as probe shows it: every file reaches the model.
func TestFolderInputRuns(t *testing.T) {
	dir := newWS(t, strings.Replace(oneStage, "input.md\n\n## Process", "notes/\n\n## Process", 1)+`-- pipeline/01-a/notes/a.md --
NOTE-A
-- pipeline/01-a/notes/b.md --
NOTE-B
`)
	vars, srv := modelVars(t, "THE ANSWER")
	probe, _, err := runIn(t, dir, vars, "probe", "01-a")
	if err != nil || !strings.Contains(probe, "NOTE-A") || !strings.Contains(probe, "NOTE-B") {
		t.Fatalf("probe (err %v) does not load the folder:\n%s", err, probe)
	}
	if o, e, err := runIn(t, dir, vars, "run"); err != nil {
		t.Fatalf("run: %v\n%s%s", err, o, e)
	}
	reqs := srv.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("no model call")
	}
	var user string
	for _, m := range reqs[0].Messages {
		user += m.Content
	}
	if !strings.Contains(user, "NOTE-A") || !strings.Contains(user, "NOTE-B") {
		t.Errorf("the model did not get the folder's files:\n%s", user)
	}
	// Changing a file of the folder makes the stage stale.
	must(t, os.WriteFile(filepath.Join(dir, "pipeline/01-a/notes/b.md"), []byte("NOTE-B2\n"), 0o644))
	if st, _ := stageStatus(t, dir, vars, "01-a"); !strings.HasPrefix(st, "stale") {
		t.Errorf("after a file of the folder input changed: %s, want stale", st)
	}
}

// Case 16: a UTF-8 byte order mark and CRLF line endings are how some
// editors save; the contract still has its title, and neither the BOM nor
// a carriage return reaches the model.
func TestBOMAndCRLFNeverReachTheModel(t *testing.T) {
	dir := newWS(t, oneStage)
	bom := "\ufeff"
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	must(t, os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte(bom+crlf("# Identity\nYou help.\n")), 0o644))
	src, _ := os.ReadFile(filepath.Join(dir, "pipeline/01-a/CONTEXT.md"))
	must(t, os.WriteFile(filepath.Join(dir, "pipeline/01-a/CONTEXT.md"), []byte(bom+crlf(string(src))), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "pipeline/01-a/input.md"), []byte(bom+crlf("The input.\nSecond line.\n")), 0o644))
	vars, srv := modelVars(t, "THE ANSWER")

	check, _, err := runIn(t, dir, vars, "check")
	if err != nil || strings.Contains(check, "no title") {
		t.Errorf("check (err %v) misreads a contract saved with a BOM:\n%s", err, check)
	}
	probe, _, err := runIn(t, dir, vars, "probe", "01-a")
	if err != nil || strings.Contains(probe, bom) || strings.Contains(probe, "\r") || !strings.Contains(probe, "The input.\nSecond line.") {
		t.Errorf("probe (err %v) passes the BOM or CR on:\n%q", err, probe)
	}
	if o, e, err := runIn(t, dir, vars, "run"); err != nil {
		t.Fatalf("run: %v\n%s%s", err, o, e)
	}
	for _, req := range srv.ChatRequests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, bom) || strings.Contains(m.Content, "\r") {
				t.Errorf("the %s message holds a BOM or a CR:\n%q", m.Role, m.Content)
			}
		}
	}
}
