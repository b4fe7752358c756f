package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/testutil/golden"
	"github.com/icm-tool/icm/server/internal/testutil/runnable"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// TestSharedWorkspacesRunAsTheirAuthorsMeant runs every stage of every
// workspace of ../shared/fixtures/icm-template and ../shared/corpus, in
// order, as a person does on a fresh clone (`icm run --stage S`, then
// `icm approve S`), against a scripted model that writes what the write
// tool lists (package runnable). The table of what each stage did is the
// golden file: today's figures, which a change to how icm reads other
// people's workspaces moves on purpose. Every refusal must be one of the
// reasons docs/refusals.md lists, every stage that reached the model
// must have sent it every instruction section of its contract, and the
// rule of docs/refusals.md holds (runsAsChecked): no stage with an error
// in icm check runs, and no stage icm run refuses lacks its error.
func TestSharedWorkspacesRunAsTheirAuthorsMeant(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shared workspace")
	}
	shared := wstest.Shared(t)
	repos := []runnable.Repo{{Name: "fixtures/icm-template", Dir: filepath.Join(shared, "fixtures", "icm-template")}}
	entries, err := os.ReadDir(filepath.Join(shared, "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			repos = append(repos, runnable.Repo{Name: "corpus/" + e.Name(), Dir: filepath.Join(shared, "corpus", e.Name())})
		}
	}
	rule := newRunsAsChecked(t)
	rep, err := runnable.Measure(context.Background(), repos, runnable.Options{Icm: icmBin, Before: rule.before, Observe: func(r runnable.StageRun) {
		rule.after(r)
		if len(r.Requests) > 0 {
			checkWholeContract(t, r.Stage.Name, contractOf(t, r.Dir, r.Stage.Name), r.Requests[0].LastUser())
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stages() == 0 {
		t.Fatal("no stage was measured")
	}
	known := documentedRefusals(t)
	for _, w := range rep.Workspaces {
		for _, s := range w.Stages {
			if s.Outcome == runnable.Refused && len(s.Reasons) == 0 {
				t.Errorf("%s %s: refused without a reason: %s", w.Name, s.Name, s.Message)
			}
			for _, why := range s.Reasons {
				if !known[why] {
					t.Errorf("%s %s: refused for %q, which docs/refusals.md does not list: %s", w.Name, s.Name, why, s.Message)
				}
			}
		}
	}
	golden.Check(t, "testdata/shared-runs.md", []byte("# What icm does with every stage of the shared workspaces\n\n"+
		"Written by TestSharedWorkspacesRunAsTheirAuthorsMeant (-update rewrites it): each stage run on a fresh-clone copy\n"+
		"with `icm run --stage S --adopt` (outputs committed with the workspace kept, as a person keeping the author's\n"+
		"results does) and approved with `icm approve S`, against a scripted model that writes what the write tool lists\n"+
		"(package runnable). The reasons of refusals are listed in docs/refusals.md.\n\n"+rep.Markdown()))
}

// documentedRefusals reads the reasons of the table in docs/refusals.md:
// the first cell of each row, in backticks.
func documentedRefusals(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(wstest.RepoRoot(t), "docs", "refusals.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	out := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		out[m[1]] = true
	}
	if len(out) == 0 {
		t.Fatal("docs/refusals.md lists no reason")
	}
	return out
}

// contractOf is a stage's contract as check reads it.
func contractOf(t *testing.T, dir, stage string) *contract.Contract {
	t.Helper()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sr := check.Run(ws, check.Options{}).Stage(stage)
	if sr == nil || sr.Contract == nil {
		t.Fatalf("%s: no contract", stage)
	}
	return sr.Contract
}

// checkWholeContract says whether a stage's first request holds every
// instruction section of its contract (its heading and its first line of
// text) and none of icm's own sections.
func checkWholeContract(t *testing.T, stage string, c *contract.Contract, user string) {
	t.Helper()
	seedStyle := !writeout.Needed(c) && !c.FallbackInstructions && strings.TrimSpace(markdown.Uncomment(c.Summary)) == ""
	for _, s := range c.Sections {
		switch s.Kind {
		case contract.KindProcess, contract.KindInputs, contract.KindOutputs:
		case contract.KindVerify:
			seedStyle = seedStyle && contract.VerifyProse(s.Text) == ""
		case contract.KindModel:
			seedStyle = seedStyle && strings.TrimSpace(markdown.Uncomment(contract.ModelProse(s.Text))) == ""
		default:
			seedStyle = seedStyle && (contract.MachineSection(s.Kind) && !c.ProseSection(s) || strings.TrimSpace(s.Text) == "")
		}
	}
	if seedStyle {
		// The seed's notation: the Process is the instructions, as ever.
		if !strings.HasPrefix(user, strings.TrimSpace(c.Process)) {
			t.Errorf("%s: the request does not start with the Process", stage)
		}
		return
	}
	if sum := strings.TrimSpace(markdown.Uncomment(c.Summary)); sum != "" && !strings.Contains(user, strings.SplitN(sum, "\n", 2)[0]) {
		t.Errorf("%s: the request lacks the line under the title", stage)
	}
	for _, s := range c.Sections {
		text := markdown.Uncomment(s.Text)
		switch {
		case s.Kind == contract.KindModel:
			text = markdown.Uncomment(contract.ModelProse(s.Text))
		case contract.MachineSection(s.Kind) && !c.ProseSection(s):
			if strings.Contains(user, "\n## "+s.Name+"\n") {
				t.Errorf("%s: the request holds icm's own section %q", stage, s.Name)
			}
			continue
		case s.Kind == contract.KindVerify && contract.VerifyProse(s.Text) == "":
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if !strings.Contains(user, "## "+s.Name+"\n") {
			t.Errorf("%s: the request lacks the section %q", stage, s.Name)
			continue
		}
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "{{") {
				if !strings.Contains(user, l) {
					t.Errorf("%s: the request lacks the text of %q: %q", stage, s.Name, l)
				}
				break
			}
		}
	}
}

// TestSamplesRunAsChecked runs the stages of icm's own sample workspaces
// the same way: what each stage did stays as it was (the golden file),
// and the rule of docs/refusals.md holds on them too.
func TestSamplesRunAsChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every sample workspace")
	}
	root := filepath.Join(wstest.RepoRoot(t), "workspaces")
	repos := []runnable.Repo{{Name: "workspaces", Dir: root, Workspaces: []string{"course-research", "course-rust", "tech-article"}}}
	rule := newRunsAsChecked(t)
	rep, err := runnable.Measure(context.Background(), repos, runnable.Options{Icm: icmBin, Before: rule.before, Observe: rule.after})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stages() == 0 {
		t.Fatal("no stage was measured")
	}
	golden.Check(t, "testdata/sample-runs.md", []byte("# What icm does with every stage of its sample workspaces\n\n"+
		"Written by TestSamplesRunAsChecked (-update rewrites it), as shared-runs.md is: against a scripted model that\n"+
		"writes what the write tool lists, so Verify checks that want sources or headings fail at the gate.\n\n"+rep.Markdown()))
}
