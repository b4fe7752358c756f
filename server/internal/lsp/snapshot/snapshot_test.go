package snapshot_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestSnapshotKnowsNoProtocol: the snapshot package answers in icm's own
// values, and the language server converts. Were it to reach glsp or
// JSON-RPC, even through a package it imports, the answers would start
// being shaped for one protocol and the package would stop being the one
// place a question is answered.
func TestSnapshotKnowsNoProtocol(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list found %d dependencies", len(deps))
	}
	const self = "github.com/icm-tool/icm/server/internal/lsp/snapshot"
	for _, d := range deps {
		if d == self {
			continue
		}
		for _, banned := range []string{"github.com/tliron/glsp", "github.com/sourcegraph/jsonrpc2", "github.com/icm-tool/icm/server/internal/lsp"} {
			if d == banned || strings.HasPrefix(d, banned+"/") {
				t.Errorf("package snapshot depends on %s", d)
			}
		}
	}
}

// set is a Set over a copy of course-research, its model server one that
// refuses (127.0.0.1:1), and what it published by file.
type set struct {
	*snapshot.Set
	dir string

	mu        sync.Mutex
	published map[string][]contract.Finding
	running   *snapshot.Running // what Options.Running answers
}

// newSet opens the set over a fresh copy of course-research; trusted
// grants the copy trust first.
func newSet(t *testing.T, trusted ...bool) *set {
	t.Helper()
	trusttest.ConfigDir(t)
	s := &set{dir: wstest.Copy(t, "course-research"), published: map[string][]contract.Finding{}}
	if real, err := filepath.EvalSymlinks(s.dir); err == nil {
		s.dir = real
	}
	if len(trusted) > 0 && trusted[0] {
		trusttest.Grant(t, s.dir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Set = snapshot.New(ctx, snapshot.Options{
		Session: func(ws *workspace.Workspace) *session.Session {
			return session.Open(ws, session.Options{Settings: session.Settings{Host: "127.0.0.1:1"}})
		},
		Publish: func(_ context.Context, _ string, files map[string]snapshot.FileFindings) {
			s.mu.Lock()
			defer s.mu.Unlock()
			for path, ff := range files {
				s.published[path] = ff.Findings
			}
		},
		Running: func(string) *snapshot.Running {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.running
		},
	})
	t.Cleanup(func() { s.Close(); cancel() })
	return s
}

func (s *set) path(rel string) string { return filepath.Join(s.dir, filepath.FromSlash(rel)) }

// hoverOn hovers on the line of f's buffer holding what.
func hoverOn(t *testing.T, f *snapshot.File, what string) string {
	t.Helper()
	i := strings.Index(string(f.Doc.Text), what)
	if i < 0 {
		t.Fatalf("%q is not in %s", what, f.Doc.Path)
	}
	pos, err := f.Doc.Mapper().Position(i)
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.Hover(t.Context(), pos)
	if err != nil || h == nil {
		t.Fatalf("hover on %q: %v, %v", what, h, err)
	}
	return h.Markdown
}

// TestAFileAnswersFromTheBufferItWasPlacedWith: a question is answered
// from the snapshot that includes every change made before it was asked,
// and the document a File was placed with does not change under it when
// the editor changes the buffer again.
func TestAFileAnswersFromTheBufferItWasPlacedWith(t *testing.T) {
	s := newSet(t)
	scope := s.path("pipeline/01-scope/CONTEXT.md")
	text := []byte(strings.ReplaceAll(string(mustRead(t, scope)), "working): input.md", "working): inputs.md"))
	s.Opened(scope, "file://"+scope, 1, text)

	before, err := s.File(scope)
	if err != nil || before == nil {
		t.Fatalf("File(%s) = %v, %v", scope, before, err)
	}
	defer before.Release()
	if h := hoverOn(t, before, "inputs.md"); !strings.Contains(h, "The file does not exist") {
		t.Errorf("hover on a missing input:\n%s", h)
	}

	fixed := strings.ReplaceAll(string(text), "working): inputs.md", "working): input.md")
	if err := s.Changed(scope, 2, []document.Change{{Text: fixed}}); err != nil {
		t.Fatal(err)
	}
	after, err := s.File(scope)
	if err != nil || after == nil {
		t.Fatalf("File(%s) after the change = %v, %v", scope, after, err)
	}
	defer after.Release()
	if h := hoverOn(t, after, "input.md"); strings.Contains(h, "does not exist") || !strings.Contains(h, "tokens") {
		t.Errorf("hover on the input once it is fixed:\n%s", h)
	}
	if !strings.Contains(string(before.Doc.Text), "inputs.md") || before.Doc.Version != 1 {
		t.Errorf("the file placed before the change now holds version %d:\n%s", before.Doc.Version, before.Doc.Text)
	}

	// The findings the analyses published followed the buffer: the last
	// one says nothing of the input.
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.published[scope] {
		if f.Code == contract.CodeInputMissing {
			t.Errorf("after the fix, the published findings still say: %s", f.Message)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// open opens rel in the editor with the disk's text (or text, when given)
// and places it.
func (s *set) open(t *testing.T, rel string, text ...string) *snapshot.File {
	t.Helper()
	p := s.path(rel)
	src := mustRead(t, p)
	if len(text) > 0 {
		src = []byte(text[0])
	}
	s.Opened(p, "file://"+p, 1, src)
	f, err := s.File(p)
	if err != nil || f == nil {
		t.Fatalf("File(%s) = %v, %v", rel, f, err)
	}
	t.Cleanup(f.Release)
	return f
}

// at is the position of the end of what in f's buffer.
func at(t *testing.T, f *snapshot.File, what string) document.Position {
	t.Helper()
	i := strings.Index(string(f.Doc.Text), what)
	if i < 0 {
		t.Fatalf("%q is not in %s", what, f.Doc.Path)
	}
	pos, err := f.Doc.Mapper().Position(i + len(what))
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rowOf(t *testing.T, st *snapshot.Status, stage string) snapshot.StageRow {
	t.Helper()
	for _, r := range st.Stages {
		if r.Name == stage {
			return r
		}
	}
	t.Fatalf("no stage %s in the status (%d stages)", stage, len(st.Stages))
	return snapshot.StageRow{}
}

// TestStatusReadsTheDiskAndTheLatestSnapshot: a workspace's status lists
// its stages in order with their states read from the disk (an output
// written outside the editor is awaiting review at once, no buffer
// having changed), the token counts of the latest snapshot, the trust
// decision, and the stage a run is working on.
func TestStatusReadsTheDiskAndTheLatestSnapshot(t *testing.T) {
	s := newSet(t)
	w := s.ByName(s.dir)
	if w == nil {
		t.Fatalf("ByName(%s) found no workspace", s.dir)
	}
	st := w.Status(t.Context())
	if st.Err != nil {
		t.Fatal(st.Err)
	}
	var names []string
	for _, r := range st.Stages {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, " "); got != "01-scope 02-research 03-outline 04-draft" {
		t.Errorf("stages = %s", got)
	}
	if st.Trust == nil || st.Trust.Allowed() {
		t.Errorf("a workspace nobody trusted has the decision %+v", st.Trust)
	}
	scope := rowOf(t, st, "01-scope")
	if scope.Tokens <= 0 {
		t.Errorf("01-scope has no token count from the snapshot: %+v", scope)
	}
	if scope.Status == string(state.Awaiting) {
		t.Errorf("01-scope awaits review before it ran: %+v", scope)
	}
	want := s.path("pipeline/01-scope/output/objectives.md")
	if len(scope.Outputs) != 1 || scope.Outputs[0] != want {
		t.Errorf("01-scope outputs = %v, want [%s]", scope.Outputs, want)
	}
	if !slices.Contains(scope.Downstream, "02-research") {
		t.Errorf("01-scope's downstream stages = %v, want 02-research among them", scope.Downstream)
	}

	writeFile(t, want, "1. Install a local model server.\n")
	st = w.Status(t.Context())
	if r := rowOf(t, st, "01-scope"); r.Status != string(state.Awaiting) {
		t.Errorf("with its output written, 01-scope is %s (%s), want %s", r.Status, r.Reason, state.Awaiting)
	}

	s.mu.Lock()
	s.running = &snapshot.Running{Stage: "02-research", Items: 4, Done: 1}
	s.mu.Unlock()
	st = w.Status(t.Context())
	r := rowOf(t, st, "02-research")
	if r.Status != snapshot.StatusRunning || st.Running == nil || st.Running.Stage != "02-research" {
		t.Errorf("the stage being run reads %s, running %+v", r.Status, st.Running)
	}
	if !strings.Contains(r.Face.Text(), "1 of 4 items done") {
		t.Errorf("the running stage's face = %q, want how far the run came", r.Face.Text())
	}
	if r := rowOf(t, st, "01-scope"); r.Status == snapshot.StatusRunning {
		t.Error("a stage no run works on reads running")
	}
}

func labels(c *snapshot.Completion) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, it := range c.Items {
		out = append(out, it.Label)
	}
	return out
}

// TestCompletionByPlace: what a contract offers depends on the section
// the cursor is in (layers and paths in Inputs, servers in Tools, the
// sections not there yet on a heading line), and the paths include the
// outputs earlier stages declare in their buffers as the latest snapshot
// has them: a new output declared in 01-scope's unsaved buffer is offered
// in 02-research.
func TestCompletionByPlace(t *testing.T) {
	s := newSet(t)
	const extra = "- Layer 4 (working): "
	text := strings.Replace(string(mustRead(t, s.path("pipeline/02-research/CONTEXT.md"))),
		"- Layer 3 (reference): references/tool-use.md\n",
		"- Layer 3 (reference): references/tool-use.md\n- L\n"+extra+"\n", 1)
	research := s.open(t, "pipeline/02-research/CONTEXT.md", text)
	ctx := t.Context()

	c, err := research.Complete(ctx, at(t, research, "\n- L"))
	if err != nil {
		t.Fatal(err)
	}
	if got := labels(c); len(got) != 2 || !strings.HasPrefix(got[0], "Layer 4") || !strings.HasPrefix(got[1], "Layer 3") {
		t.Errorf("a list item in Inputs offers %v, want the two layers", got)
	}
	for _, it := range c.Items {
		if got := string(research.Doc.Text[it.Range.Start:it.Range.End]); got != "L" {
			t.Errorf("%s replaces %q, want the L typed", it.Label, got)
		}
	}

	c, err = research.Complete(ctx, at(t, research, extra))
	if err != nil {
		t.Fatal(err)
	}
	got := labels(c)
	if c == nil || !c.List || !slices.Contains(got, "../01-scope/output/objectives.md") || !slices.Contains(got, "references/tool-use.md") {
		t.Errorf("a path in Inputs offers %v, want 01-scope's output and the stage's reference", got)
	}
	if slices.Contains(got, "output/notes.md") {
		t.Error("a stage is offered its own output as an input")
	}

	c, err = research.Complete(ctx, at(t, research, "## Tools\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := labels(c); !slices.Equal(got, []string{"none", "browser-server", "search-server"}) {
		t.Errorf("a line in Tools offers %v, want none and the configured servers", got)
	}

	text = strings.Replace(string(research.Doc.Text), "## Process\n", "## \n\n## Process\n", 1)
	if err := s.Changed(research.Doc.Path, 2, []document.Change{{Text: text}}); err != nil {
		t.Fatal(err)
	}
	research2, err := s.File(research.Doc.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer research2.Release()
	c, err = research2.Complete(ctx, at(t, research2, "\n## "))
	if err != nil {
		t.Fatal(err)
	}
	if got := labels(c); slices.Contains(got, "## Inputs") || slices.Contains(got, "## Verify") || !slices.Contains(got, "## Gate") {
		t.Errorf("a heading line offers %v, want the sections the contract lacks (Gate), not those it has (Inputs, Verify)", got)
	}

	// A new output declared in 01-scope's buffer, not saved.
	scopeText := strings.Replace(string(mustRead(t, s.path("pipeline/01-scope/CONTEXT.md"))),
		"- objectives.md -> output/\n", "- objectives.md -> output/\n- glossary.md -> output/\n", 1)
	s.open(t, "pipeline/01-scope/CONTEXT.md", scopeText)
	c, err = research2.Complete(ctx, at(t, research2, extra))
	if err != nil {
		t.Fatal(err)
	}
	if got := labels(c); !slices.Contains(got, "../01-scope/output/glossary.md") {
		t.Errorf("after 01-scope declares glossary.md, a path in 02-research offers %v", got)
	}
}

// verbs are what the lenses offer, a lens's own before what it holds
// (More, a menu under it).
func verbs(ls []snapshot.Lens) map[snapshot.Verb]snapshot.Lens {
	out := map[snapshot.Verb]snapshot.Lens{}
	for _, l := range ls {
		for _, m := range l.More {
			out[m.Verb] = snapshot.Lens{Line: l.Line, Offer: m}
		}
	}
	for _, l := range ls {
		out[l.Verb] = l
	}
	return out
}

// TestLensesFollowTrustAndReviewState: on a contract's title, an
// untrusted workspace offers trust and no run; a trusted one offers the
// run, and Approve once the stage's output waits for review; both show
// the assembled context's tokens; the title holds two lenses, the rest
// under the state.
func TestLensesFollowTrustAndReviewState(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		t.Run(map[bool]string{false: "untrusted", true: "trusted"}[trusted], func(t *testing.T) {
			s := newSet(t, trusted)
			scope := s.open(t, "pipeline/01-scope/CONTEXT.md")
			ls, err := scope.Lenses(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			title := at(t, scope, "# Stage: 01-scope").Line
			if len(ls) > 2 {
				t.Errorf("%d lenses on the title, want an action and the state: %+v", len(ls), ls)
			}
			for _, l := range ls {
				if l.Line != title {
					t.Errorf("lens %q is on line %d, want the title's %d", l.Title, l.Line, title)
				}
			}
			v := verbs(ls)
			if _, ok := v[snapshot.VerbRunStage]; ok != trusted {
				t.Errorf("trusted=%v: a run lens is there: %v", trusted, ok)
			}
			if _, ok := v[snapshot.VerbTrust]; ok == trusted {
				t.Errorf("trusted=%v: a trust lens is there: %v", trusted, ok)
			}
			if p, ok := v[snapshot.VerbProbe]; !ok || !strings.Contains(p.Title, "tokens") {
				t.Errorf("no token count lens among %+v", ls)
			}
			if _, ok := v[snapshot.VerbApprove]; ok {
				t.Error("an Approve lens on a stage with no output")
			}

			writeFile(t, s.path("pipeline/01-scope/output/objectives.md"), "1. Install a local model server.\n")
			ls, err = scope.Lenses(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if a, ok := verbs(ls)[snapshot.VerbApprove]; !ok || a.On.Stage != "01-scope" || a.On.Workspace != s.dir {
				t.Errorf("with the output waiting for review, the lenses are %+v", ls)
			}
		})
	}
}

// TestAnUntrustedHoverSaysWhyTheWindowIsUnknown: a workspace that names
// its own model server is not asked before it is trusted, so the hover
// says the window is unknown for that reason, not that a server failed to
// answer (none was asked).
func TestAnUntrustedHoverSaysWhyTheWindowIsUnknown(t *testing.T) {
	trusttest.ConfigDir(t)
	dir := wstest.Copy(t, "course-research")
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, strings.Replace(string(mustRead(t, cfg)), "[model]\n", "[model]\nbase_url = \"http://127.0.0.1:1\"\n", 1))
	ctx, cancel := context.WithCancel(context.Background())
	s := &set{dir: dir, published: map[string][]contract.Finding{}}
	s.Set = snapshot.New(ctx, snapshot.Options{
		Session: func(ws *workspace.Workspace) *session.Session {
			return session.Open(ws, session.Options{})
		},
		Publish: func(context.Context, string, map[string]snapshot.FileFindings) {},
		Running: func(string) *snapshot.Running { return nil },
	})
	t.Cleanup(func() { s.Close(); cancel() })
	h := hoverOn(t, s.open(t, "pipeline/01-scope/CONTEXT.md"), "# Stage: 01-scope")
	if strings.Contains(h, "did not answer") || !strings.Contains(h, "until the workspace is trusted") {
		t.Errorf("the untrusted hover on the title:\n%s", h)
	}
}

// TestAnUntrustedOutputFileOffersNoRerun: an output file's lenses follow
// trust as the contract's do: untrusted, neither its lenses nor the
// actions its state lens holds offer a re-run (a run would be refused);
// they offer trust instead. Trusted, Re-run is there.
func TestAnUntrustedOutputFileOffersNoRerun(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		t.Run(map[bool]string{false: "untrusted", true: "trusted"}[trusted], func(t *testing.T) {
			s := newSet(t, trusted)
			writeFile(t, s.path("pipeline/01-scope/output/objectives.md"), "1. Install a local model server.\n")
			out := s.open(t, "pipeline/01-scope/output/objectives.md")
			ls, err := out.Lenses(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			v := verbs(ls)
			if _, ok := v[snapshot.VerbApprove]; !ok {
				t.Errorf("no Approve among %+v", ls)
			}
			if _, ok := v[snapshot.VerbRunStage]; ok != trusted {
				t.Errorf("trusted=%v: a Re-run is offered: %v (%+v)", trusted, ok, ls)
			}
			if _, ok := v[snapshot.VerbTrust]; ok == trusted {
				t.Errorf("trusted=%v: Trust is offered: %v (%+v)", trusted, ok, ls)
			}
		})
	}
}

// TestAnOutputNamedByASetupVariableHasItsHover: an output whose name is
// a {{VAR}} filled from [vars] is the stage's output for its hover as for
// its lenses (one reading of the contract for both).
func TestAnOutputNamedByASetupVariableHasItsHover(t *testing.T) {
	s := newSet(t, true)
	cfg := s.path("config.toml")
	writeFile(t, cfg, string(mustRead(t, cfg))+"\n[vars]\nLIST = \"goals\"\n")
	scope := s.path("pipeline/01-scope/CONTEXT.md")
	writeFile(t, scope, strings.Replace(string(mustRead(t, scope)), "- objectives.md -> output/", "- {{LIST}}.md -> output/", 1))
	writeFile(t, s.path("pipeline/01-scope/output/goals.md"), "1. Install a local model server.\n")
	out := s.open(t, "pipeline/01-scope/output/goals.md")
	ls, err := out.Lenses(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := verbs(ls)[snapshot.VerbApprove]; !ok {
		t.Fatalf("the output's lenses: %+v", ls)
	}
	h, err := out.Hover(t.Context(), document.Position{Line: 0, Character: 1})
	if err != nil || h == nil || !strings.Contains(h.Markdown, "**01-scope**") {
		t.Errorf("the hover on the output%ss first line: %+v, %v", "'", h, err)
	}
}
