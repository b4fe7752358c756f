package workflow_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestRerunOneItemKeepsEditsElsewhere: a person edits parts A and C of
// a For each output, then asks for part B again with a note. Only B's
// section changes; the note reaches that one call; the model's version
// (for Compare) has the new B and the model's A and C; the edits still
// count as edits, so a full run asks before overwriting them.
func TestRerunOneItemKeepsEditsElsewhere(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	h.srv.On(ollamatest.LastUserContains("shorter, please")).Reply(ollamatest.Text("## Part B\n\nA shorter part B."))
	scriptSmall(h.srv, 3)
	h.mustRun(workflow.Options{})
	h.approve("01-plan")
	h.mustRun(workflow.Options{})
	h.approve("02-write")
	parts := filepath.Join(h.dir, "pipeline/02-write/output/parts.md")
	orig := h.read("pipeline/02-write/output/parts.md")
	edited := strings.Replace(orig, "## Part A\n\nText of the part.", "## Part A\n\nMy own words for A.", 1)
	edited = strings.Replace(edited, "## Part C\n\nText of the part.", "## Part C\n\nText of the part, and a line I added.", 1)
	if edited == orig {
		t.Fatalf("unexpected output:\n%s", orig)
	}
	os.WriteFile(parts, []byte(edited), 0o644)
	calls := len(h.srv.ChatRequests())

	sum := h.mustRun(workflow.Options{Stage: "02-write", Item: 2, Note: "shorter, please"})
	if n := len(h.srv.ChatRequests()) - calls; n != 1 {
		t.Fatalf("re-running one item made %d model calls", n)
	}
	last := h.srv.ChatRequests()[len(h.srv.ChatRequests())-1].LastUser()
	if !strings.Contains(last, "## Part B") || !strings.Contains(last, "Text of the part.") || !strings.Contains(last, "shorter, please") {
		t.Errorf("the call did not see its item and its previous answer:\n%s", last)
	}
	got := h.read("pipeline/02-write/output/parts.md")
	want := strings.Replace(edited, "## Part B\n\nText of the part.", "## Part B\n\nA shorter part B.", 1)
	if got != want {
		t.Fatalf("output after re-running item 2:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(sum.Ran[0].Status, "done") {
		t.Errorf("result %+v", sum.Ran[0])
	}
	model, err := os.ReadFile(workflow.ModelVersionPath(h.ws(), mustStage(t, h, "02-write"), "pipeline/02-write/output/parts.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(orig, "## Part B\n\nText of the part.", "## Part B\n\nA shorter part B.", 1); string(model) != want {
		t.Errorf("the model's version:\n%s\nwant:\n%s", model, want)
	}
	s := stageState(t, h.ws(), "02-write")
	if s.Status != state.Awaiting || !s.Edited || !s.HumanEdited() {
		t.Errorf("after the item re-run: %s edited=%v human=%v (%s)", s.Status, s.Edited, s.HumanEdited(), s.Reason)
	}
	// The person's edits in A and C are still theirs: a full run asks first.
	_, err = h.run(workflow.Options{Stage: "02-write"})
	var ee *workflow.EditedError
	if !errors.As(err, &ee) {
		t.Errorf("a full run over the edits: %v", err)
	}
	// The previous file is kept in history.
	if kept, _ := filepath.Glob(filepath.Join(h.dir, "history/versions/02-write/*/parts.md")); len(kept) == 0 {
		t.Error("the file before the item re-run was not kept")
	}
}

// TestRerunEditedItem: the item asked for is itself edited; its section
// is found between its neighbours and replaced.
func TestRerunEditedItem(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 3)
	h.mustRun(workflow.Options{})
	h.approve("01-plan")
	h.mustRun(workflow.Options{})
	parts := filepath.Join(h.dir, "pipeline/02-write/output/parts.md")
	orig := h.read("pipeline/02-write/output/parts.md")
	os.WriteFile(parts, []byte(strings.Replace(orig, "## Part B\n\nText of the part.", "## Part B (mine)\n\nRewritten by hand,\nover two lines.", 1)), 0o644)
	h.mustRun(workflow.Options{Stage: "02-write", Item: 2})
	if got := h.read("pipeline/02-write/output/parts.md"); got != orig {
		t.Errorf("after re-running the edited item:\n%s\nwant:\n%s", got, orig)
	}
	if s := stageState(t, h.ws(), "02-write"); s.Status != state.Awaiting || s.Edited {
		t.Errorf("state %s edited=%v", s.Status, s.Edited)
	}
}

func TestRerunItemRefusals(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 2)
	h.mustRun(workflow.Options{})
	for _, tt := range []struct {
		opts workflow.Options
		want string
	}{
		{workflow.Options{Stage: "01-plan", Item: 1}, "no For each section"},
		{workflow.Options{Stage: "02-write", Item: 1}, "pending: not run yet"},
	} {
		if _, err := h.run(tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.opts, err, tt.want)
		}
	}
	h.approve("01-plan")
	h.mustRun(workflow.Options{})
	if _, err := h.run(workflow.Options{Stage: "02-write", Item: 3}); err == nil || !strings.Contains(err.Error(), "pick one from 1 to 2") {
		t.Errorf("item 3 of 2: %v", err)
	}
	if _, err := workflow.New(h.ws(), workflow.Options{Item: 1}); err == nil {
		t.Error("an item without a stage was accepted")
	}
}
