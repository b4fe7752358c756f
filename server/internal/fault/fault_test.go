package fault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// kinded is a core error type that knows its fault, as llm.Error does.
type kinded struct{ msg string }

func (k *kinded) Error() string { return k.msg }
func (k *kinded) Fault() *Error {
	return ModelMissing(k.msg, "qwen3:4b", "http://127.0.0.1:11434", "")
}

func TestFrom(t *testing.T) {
	base := Stale("01-scope", "input.md changed")
	cases := []struct {
		name      string
		err       error
		kind      Kind
		msg, hint string
		actions   int
	}{
		{"nil", nil, "", "", "", 0},
		{"a fault as it is", base, KindStale, "stage 01-scope is stale: input.md changed", "run it again, or approve it as it is", 2},
		{"a wrapped fault keeps the fuller message", fmt.Errorf("approve: %w", base), KindStale, "approve: stage 01-scope is stale: input.md changed", "run it again, or approve it as it is", 2},
		{"a faulter", fmt.Errorf("stage 01-scope: %w", &kinded{"model missing"}), KindModelMissing, "stage 01-scope: model missing", `pull "qwen3:4b" onto the server, or name a model it has`, 2},
		{"cancelled", fmt.Errorf("run: %w", context.Canceled), KindCancelled, "run: context canceled", "the work finished before the cancel is kept; running again resumes it", 0},
		{"a deadline", fmt.Errorf("probe: %w", context.DeadlineExceeded), KindFailed, "probe: context deadline exceeded", "it took longer than it may: check that what it waited on answers, then try again", 0},
		{"a file the system refused", fmt.Errorf("save: %w", &fs.PathError{Op: "write", Path: "/w/.icm/run.json", Err: syscall.ENOSPC}), KindFailed, "save: write /w/.icm/run.json: no space left on device", "the disk is full: free some space, then try again", 0},
		{"a file that is not there", &fs.PathError{Op: "open", Path: "notes.md", Err: fs.ErrNotExist}, KindFailed, "open notes.md: file does not exist", "check that the file or folder is there (something may have moved or deleted it), then try again", 0},
		{"a link the system refused", &os.LinkError{Op: "rename", Old: "/w/a", New: "/w/b", Err: fs.ErrPermission}, KindFailed, "rename /w/a /w/b: permission denied", "icm may not use the file: check its permissions and who owns it", 0},
		{"a call the system refused", os.NewSyscallError("flock", syscall.EINVAL), KindFailed, "flock: invalid argument", "check the file and that icm may read and write it, then try again", 0},
		{"anything else is a bug", errors.New("boom"), KindInternal, "boom", "this is a bug in icm, not a problem of the workspace: please report it, with this message, at " + ReportURL, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := From(c.err)
			if c.err == nil {
				if f != nil {
					t.Fatalf("From(nil) = %v", f)
				}
				return
			}
			if f.Kind != c.kind || f.Msg != c.msg || f.Hint != c.hint || len(f.Actions) != c.actions {
				t.Errorf("From = {%s %q %q %d actions}, want {%s %q %q %d}", f.Kind, f.Msg, f.Hint, len(f.Actions), c.kind, c.msg, c.hint, c.actions)
			}
			if !errors.Is(f, c.err) && f != c.err {
				t.Error("the fault lost its cause")
			}
			if KindOf(c.err) != c.kind {
				t.Errorf("KindOf = %s", KindOf(c.err))
			}
		})
	}
	if From(base) != base {
		t.Error("From copied a fault that needed no copy")
	}
}

func TestKindsAndActionsAreNamed(t *testing.T) {
	for _, k := range Kinds() {
		if !k.Known() || k.Title() == "" || k.Title() == string(k) && k != KindFailed && k != KindCancelled {
			t.Errorf("kind %s has no title", k)
		}
		if strings.ToLower(string(k)) != string(k) || strings.ContainsAny(string(k), " _") {
			t.Errorf("kind %q is not lower-case-with-hyphens", k)
		}
	}
	if Kind("from-a-newer-icm").Known() || Kind("from-a-newer-icm").Class() != ClassFailed {
		t.Error("an unknown kind must read as a failure")
	}
	for _, id := range Actions() {
		if !id.Known() || (Action{ID: id}).Title() == "" {
			t.Errorf("action %s has no title", id)
		}
	}
	if got := (Action{ID: OpenFile, File: "/w/output/notes.md"}).Title(); got != "Open notes.md" {
		t.Errorf("open-file title = %q", got)
	}
	if got := (Action{ID: PullModel, Model: "qwen3:4b"}).Title(); got != "Pull qwen3:4b" {
		t.Errorf("pull-model title = %q", got)
	}
}

func TestHintsNameNoFlag(t *testing.T) {
	// Hints are read in the editor too: the flags belong to the CLI's
	// rendering of the actions.
	for _, e := range []*Error{
		VerifyFailed("01", []string{"x"}, "/w/x", 1), RerunWouldApprove("01"), EditedOutput("01", []string{"a"}, ""),
		ContractInvalid("01", "/w/c", 1, []string{"e"}), Stale("01", "r"), NotRun("01"), RunFailed("01", "r"),
		ModelUnreachable("m", "http://h", "ollama serve"), ModelMissing("m", "q", "http://h", "qwen3:8b"), NoModelNamed("01", ""),
		NotInRegistry("q", "qwen3:8b", nil, nil), NotInRegistry("q", "", []string{"a", "b"}, nil),
	} {
		if strings.Contains(e.Hint, "--") || strings.Contains(e.Hint, "`icm") {
			t.Errorf("%s hint %q names a command-line flag or command", e.Kind, e.Hint)
		}
	}
}

func TestClassified(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{NotFound("no stage 09", ""), true},
		{fmt.Errorf("approve: %w", Stale("01", "x")), true},
		{fmt.Errorf("call: %w", &kinded{"missing"}), true},
		{errors.New("boom"), false},
		{fmt.Errorf("run: %w", context.Canceled), true},
		{&fs.PathError{Op: "open", Path: "/w/x", Err: fs.ErrNotExist}, true},
		{nil, false},
	} {
		if got := Classified(c.err); got != c.want {
			t.Errorf("Classified(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestDidYouMeanComesBeforePull: a model name one slip away from an
// installed model was most likely that model, so the first fix is to
// use it; pulling the misspelt name (which the registry seldom has) comes
// after. Without a likely model, pulling is the first fix. Before, Pull
// led ("Pull qwen3.5:9" before "Use qwen3.5:9b").
func TestDidYouMeanComesBeforePull(t *testing.T) {
	typo := ModelMissing("m", "qwen3.5:9", "http://h", "qwen3.5:9b")
	if len(typo.Actions) != 2 || typo.Actions[0].ID != ChooseModel || typo.Actions[0].Model != "qwen3.5:9b" || typo.Actions[1].ID != PullModel {
		t.Errorf("with a likely model, actions = %v; want use qwen3.5:9b, then pull", typo.Actions)
	}
	plain := ModelMissing("m", "llama3.2", "http://h", "")
	if len(plain.Actions) == 0 || plain.Actions[0].ID != PullModel {
		t.Errorf("without one, actions = %v; want pull first", plain.Actions)
	}
}

// TestFromPlacesTheSystemsRefusal: a file the system refused is the
// fault's place when its path is a whole one; a path below an os.Root is
// not, and would read as a file of the current folder.
func TestFromPlacesTheSystemsRefusal(t *testing.T) {
	abs := From(&fs.PathError{Op: "open", Path: "/w/notes.md", Err: fs.ErrPermission})
	if abs.File != "/w/notes.md" || len(abs.Actions) != 0 {
		t.Errorf("an absolute path: file %q, actions %v", abs.File, abs.Actions)
	}
	if rel := From(&fs.PathError{Op: "open", Path: "notes.md", Err: fs.ErrPermission}); rel.File != "" {
		t.Errorf("a path below a root is the fault's file: %q", rel.File)
	}
}

// TestOnlyPlainErrorsAreCounted: From counts each error of no kind it
// meets, and nothing else; KindOf reads a kind without counting.
func TestOnlyPlainErrorsAreCounted(t *testing.T) {
	before := Unclassified.N.Load()
	for _, err := range []error{
		Stale("01", "x"), fmt.Errorf("approve: %w", Stale("01", "x")), &kinded{"missing"},
		context.Canceled, &fs.PathError{Op: "open", Path: "/w/x", Err: fs.ErrNotExist},
	} {
		From(err)
	}
	KindOf(errors.New("read as a kind"))
	if n := Unclassified.N.Load(); n != before {
		t.Fatalf("%d errors with a kind were counted as bugs", n-before)
	}
	From(fmt.Errorf("stage 01: %w", errors.New("a plain cause")))
	if n := Unclassified.N.Load(); n != before+1 {
		t.Fatalf("after one plain error: %d counted", n-before)
	}
	if _, seen := Unclassified.Seen.Load("stage 01: a plain cause (*fmt.wrapError > *errors.errorString)"); !seen && before < keepUnclassified {
		t.Error("the plain error's message and chain are not in the record")
	}
}
