package workflow_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/runnable"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// runsAsChecked holds the rule of docs/refusals.md on every stage a
// measurement runs: an error in icm check means the stage will not run.
// So no stage with an error (as icm check says it just before the run,
// knowing the scripted model's window as the editor does) runs, and every
// stage icm run refuses has one, but for the refusals docs/refusals.md
// lists as not certain, which later work removes.
type runsAsChecked struct {
	t *testing.T
	// pending are the reasons of refusals documented as not certain.
	pending map[string]bool
	// errs are the codes of check's errors on each stage before its run,
	// by the workspace's folder and the stage.
	errs map[string][]string
}

func newRunsAsChecked(t *testing.T) *runsAsChecked {
	return &runsAsChecked{t: t, pending: uncertainRefusals(t), errs: map[string][]string{}}
}

// before records check's errors on a stage, as a run's pre-flight and
// the editor see them.
func (c *runsAsChecked) before(dir, stage string) {
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	defer ws.Close()
	rep := check.Run(ws, check.Options{Window: runnable.DefaultContextLength, Reserve: tokens.MinAnswerRoom})
	var codes []string
	if sr := rep.Stage(stage); sr != nil {
		for _, f := range rep.FindingsFor(sr.Stage.Contract) {
			if f.Severity == contract.Error {
				codes = append(codes, f.Code)
			}
		}
		for _, f := range rep.FindingsFor(sr.Stage.Dir) {
			if f.Severity == contract.Error {
				codes = append(codes, f.Code)
			}
		}
	}
	c.errs[dir+"\x00"+stage] = codes
}

// after holds the rule on what the stage's run did.
func (c *runsAsChecked) after(r runnable.StageRun) {
	s := r.Stage
	errs := c.errs[r.Dir+"\x00"+s.Name]
	name := filepath.Base(r.Dir) + " " + s.Name
	switch {
	case s.Outcome == runnable.Ran || s.Outcome == runnable.Manual:
		if len(errs) > 0 {
			c.t.Errorf("%s ran, but icm check gave it errors %v", name, errs)
		}
	case s.Outcome == runnable.Refused && s.Step == "run" && s.Kind != string(fault.KindScriptFailed):
		if len(errs) > 0 {
			return
		}
		for _, why := range s.Reasons {
			if !c.pending[why] {
				c.t.Errorf("%s was refused (%s: %s) without an error in icm check", name, why, s.Message)
			}
		}
	}
}

// uncertainRefusals reads the reasons docs/refusals.md's measured list
// marks as not certain ("no" in its second column).
func uncertainRefusals(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(wstest.RepoRoot(t), "docs", "refusals.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\| ([^|]*)\\|").FindAllStringSubmatch(string(data), -1) {
		if strings.HasPrefix(strings.TrimSpace(m[2]), "no") {
			out[m[1]] = true
		}
	}
	return out
}
