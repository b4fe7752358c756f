package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/golden"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// sharedRepo is a folder of ../shared that stands for a repository and
// the workspaces in it (relative to the folder).
type sharedRepo struct {
	dir        string
	workspaces []string
}

var sharedRepos = []sharedRepo{
	{"fixtures/icm-template", []string{"course-deck-production", "research-pipeline-new", "script-to-animation", "workspace-builder"}},
	{"corpus/ctwoodwa-enterprise-icm", nil}, // workspaces/* (listed below)
	{"corpus/etxetxe-Dossier_Professionnel_SPV_2026", []string{"."}},
	{"corpus/wcvessels-fiber-copy-editor", []string{"."}},
	{"corpus/PryzmEdge-Markdown-Architecture", []string{"."}},
	{"corpus/macaiagent1-cyber-ideation-workflow", []string{"."}},
	{"corpus/mgalela-bubat", []string{"."}},
	{"corpus/Th3rdai-CodeCompanion-43070f4", []string{"."}},
	{"corpus/upstream-icm-template", nil},
}

// TestSharedWorkspacesRunThroughTheWriteTool runs every writing stage of
// the shared template workspaces and corpus, in order, on a copy of its
// repository (a .git marks the copy's root, so /_core/... resolves as in
// the original), against a scripted model that writes one file for each
// declared output through the write tool; each stage must reach its gate
// and be approved. The table of runnable stages, before (one concrete
// output: the answer is the output) and now, is the golden file.
func TestSharedWorkspacesRunThroughTheWriteTool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shared workspace")
	}
	shared := filepath.Join(wstest.RepoRoot(t), "..", "shared")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no ../shared: %v", err)
	}
	var table strings.Builder
	table.WriteString("# Stages of the shared workspaces that run end to end\n\n" +
		"Written by TestSharedWorkspacesRunThroughTheWriteTool (-update rewrites it). before: the stage could run as\n" +
		"icm ran it before the write tool (one concrete output). now: it ran against a scripted model writing through\n" +
		"write_output, reached its gate and was approved. skipped: a script, or no file to write.\n")
	for _, repo := range sharedRepos {
		src := filepath.Join(shared, filepath.FromSlash(repo.dir))
		wss := repo.workspaces
		if wss == nil {
			entries, err := os.ReadDir(filepath.Join(src, "workspaces"))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.IsDir() && workspace.IsRoot(filepath.Join(src, "workspaces", e.Name())) {
					wss = append(wss, "workspaces/"+e.Name())
				}
			}
		}
		root := wstest.CopyDir(t, src)
		if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, w := range wss {
			name := path.Join(repo.dir, w)
			rows := runShared(t, filepath.Join(root, filepath.FromSlash(w)))
			before, now, of := 0, 0, 0
			for _, r := range rows {
				if r.skipped == "" {
					of++
				}
				if r.before {
					before++
				}
				if r.now {
					now++
				}
			}
			fmt.Fprintf(&table, "\n## %s: %d of %d writing stages before, %d now\n\n| stage | before | now |\n|---|---|---|\n", name, before, of, now)
			for _, r := range rows {
				fmt.Fprintf(&table, "| %s | %s | %s |\n", r.stage, yes(r.before, r.skipped), nowCell(r))
			}
		}
	}
	golden.Check(t, "testdata/shared-runs.md", []byte(table.String()))
}

type sharedRow struct {
	stage       string
	before, now bool
	skipped     string
	failure     string
}

func yes(ok bool, skipped string) string {
	if skipped != "" {
		return "skipped: " + skipped
	}
	if ok {
		return "yes"
	}
	return "no"
}

func nowCell(r sharedRow) string {
	switch {
	case r.skipped != "":
		return "skipped: " + r.skipped
	case r.now:
		return "yes"
	}
	return "no: " + r.failure
}

// placeholders in a declared output, filled in by the scripted model.
var fillRe = regexp.MustCompile(`\[[^\]/]+\]|\{\{[^}/]*\}\}|<[^>/]+>|\{[^{}/]+\}|YYYY-MM-DD`)

// filled is the file the scripted model writes for a declared output.
func filled(tg writeout.Target) string {
	p := fillRe.ReplaceAllStringFunc(tg.Path, func(m string) string {
		if m == "YYYY-MM-DD" {
			return "2026-12-01"
		}
		return "demo"
	})
	if tg.Dir {
		p += "/notes.md"
	}
	return p
}

// runShared runs a workspace's stages in order and says how each went.
func runShared(t *testing.T, dir string) []sharedRow {
	t.Helper()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := check.Run(ws, check.Options{})
	// What the scripted model writes: every heading a later stage's input
	// scope names, so a section-scoped input finds its section.
	body := "Written for the test.\n"
	for _, sr := range rep.Stages {
		if sr.Contract == nil {
			continue
		}
		for _, in := range sr.Contract.Inputs {
			if in.Scope != nil {
				for _, h := range append(append([]string{}, in.Scope.Headings...), in.Scope.Names...) {
					body += "\n## " + h + "\n\nSome text.\n"
				}
			}
		}
	}
	var rows []sharedRow
	for _, st := range ws.Stages {
		row := sharedRow{stage: st.Name}
		sr := rep.Stage(st.Name)
		if sr == nil || sr.Contract == nil {
			row.skipped = "no contract"
			rows = append(rows, row)
			continue
		}
		c := sr.Contract
		targets := writeout.Targets(c)
		switch {
		case c.Script != nil:
			row.skipped = "a script"
		case len(targets) == 0:
			row.skipped = "no file to write"
		}
		if row.skipped != "" {
			rows = append(rows, row)
			continue
		}
		errs := false
		for _, f := range rep.FindingsFor(st.Contract) {
			errs = errs || f.Severity == contract.Error
		}
		_, one := c.ModelOutput()
		row.before = one && !errs && len(targets) == 1
		// A server of its own per stage: a stage refused before its
		// calls leaves no turns for the next.
		srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 262144, Family: "qwen3", Capabilities: []string{"completion", "tools"}}}})
		client, err := llm.NewOllama(llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
		if err != nil {
			t.Fatal(err)
		}
		if writeout.Needed(c) {
			var calls []ollamatest.ToolCall
			for _, tg := range targets {
				calls = append(calls, ollamatest.Call(writeout.ToolName, map[string]any{"path": filled(tg), "content": "# " + tg.Path + "\n\n" + body}))
			}
			srv.Enqueue(ollamatest.Calls(calls...), ollamatest.Text("Wrote every output."))
		} else {
			srv.Enqueue(ollamatest.Text("# Output\n\n" + body))
		}
		eng, err := workflow.New(openWS(t, dir), workflow.Options{Client: client, Stage: st.Name})
		if err == nil {
			_, err = eng.Run(context.Background())
		}
		if err == nil {
			_, err = workflow.Approve(context.Background(), openWS(t, dir), st.Name, workflow.ApproveOptions{})
		}
		if err == nil {
			if s := stageState(t, openWS(t, dir), st.Name); s.Status != state.Approved {
				err = errors.New(string(s.Status) + ": " + s.Reason)
			}
		}
		if reqs := srv.ChatRequests(); len(reqs) > 0 {
			checkWholeContract(t, st.Name, c, reqs[0].LastUser())
		}
		if err != nil {
			row.failure = oneLineErr(err)
		} else {
			row.now = true
		}
		rows = append(rows, row)
	}
	return rows
}

func oneLineErr(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// checkWholeContract says whether a stage's first request holds every
// instruction section of its contract (its heading and its first line of
// text) and none of icm's own sections.
func checkWholeContract(t *testing.T, stage string, c *contract.Contract, user string) {
	t.Helper()
	seedStyle := !writeout.Needed(c) && !c.FallbackInstructions
	for _, s := range c.Sections {
		switch s.Kind {
		case contract.KindProcess, contract.KindInputs, contract.KindOutputs:
		case contract.KindVerify:
			seedStyle = seedStyle && contract.VerifyProse(s.Text) == ""
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
	for _, s := range c.Sections {
		switch {
		case contract.MachineSection(s.Kind) && !c.ProseSection(s):
			if strings.Contains(user, "\n## "+s.Name+"\n") {
				t.Errorf("%s: the request holds icm's own section %q", stage, s.Name)
			}
			continue
		case s.Kind == contract.KindVerify && contract.VerifyProse(s.Text) == "":
			continue
		}
		if strings.TrimSpace(s.Text) == "" {
			continue
		}
		if !strings.Contains(user, "## "+s.Name+"\n") {
			t.Errorf("%s: the request lacks the section %q", stage, s.Name)
			continue
		}
		if s.Kind == contract.KindInputs || s.Kind == contract.KindOutputs {
			continue // rewritten: what was loaded, what icm accepts
		}
		for _, l := range strings.Split(s.Text, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "{{") {
				if !strings.Contains(user, l) {
					t.Errorf("%s: the request lacks the text of %q: %q", stage, s.Name, l)
				}
				break
			}
		}
	}
}
