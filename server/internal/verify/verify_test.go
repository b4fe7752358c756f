package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func write(t *testing.T, dir, name, text string) Output {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Output{Rel: name, Abs: p}
}

func parseChecks(t *testing.T, lines ...string) []contract.Check {
	t.Helper()
	src := "# Stage: x\n## Process\ngo\n## Outputs\n- a.md -> output/\n## Verify\n- " + strings.Join(lines, "\n- ") + "\n"
	c := contract.Parse("/x", []byte(src))
	for _, f := range c.Findings {
		if f.Severity == contract.Error {
			t.Fatalf("contract: %s", f)
		}
	}
	return c.Verify
}

func TestChecks(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.md", "# Notes\n\n## One\n- fact\nSources: https://example.org/a\n\n## Two\n- fact\n\nSources:\n- https://example.org/b\n")
	bad := write(t, dir, "bad.md", "# Notes\n\n## One\n- fact {{NAME}}\n\n## Two\nTODO write this\n")
	empty := write(t, dir, "empty.md", "  \n")
	schema := write(t, dir, "s.json", `{"type":"object","required":["score"],"properties":{"score":{"type":"integer"}}}`)
	okJSON := write(t, dir, "ok.json", `{"score": 3}`)
	badJSON := write(t, dir, "bad.json", `{"score": "high"}`)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	env := Env{StageDir: dir, Stage: "01-x", Resolve: func(p string) (string, error) { return filepath.Join(dir, p), nil }, Schemas: ws}
	_ = schema
	tests := []struct {
		check string
		out   Output
		ok    bool
		want  string // a fragment of the first finding
	}{
		{"non-empty", good, true, ""},
		{"non-empty", empty, false, "empty"},
		{"headings 2..3", good, true, ""},
		{"headings 3..5", good, false, "at least 3"},
		{"headings 1", good, false, "at most 1"},
		{"max-words 100", good, true, ""},
		{"max-words 3", good, false, "words; cut it"},
		{"min-words 50", good, false, "at least 50"},
		{"sources", good, true, ""},
		{"sources", bad, false, `section "One" has no`},
		{"no-placeholders", good, true, ""},
		{"no-placeholders", bad, false, `"{{NAME}}"`},
		{"json-schema s.json", okJSON, true, ""},
		{"json-schema s.json", badJSON, false, "does not match"},
		{"json-schema s.json", good, false, "not JSON"},
	}
	for _, tt := range tests {
		res := Run(context.Background(), parseChecks(t, tt.check), []Output{tt.out}, env)
		if len(res) != 1 {
			t.Fatalf("%s: %d results", tt.check, len(res))
		}
		r := res[0]
		if r.OK != tt.ok {
			t.Errorf("%s on %s: ok=%v, findings %+v", tt.check, tt.out.Rel, r.OK, r.Findings)
			continue
		}
		if !tt.ok && !strings.Contains(r.Findings[0].Message, tt.want) {
			t.Errorf("%s on %s: finding %q lacks %q", tt.check, tt.out.Rel, r.Findings[0].Message, tt.want)
		}
	}
	// Findings carry lines: the placeholder on line 4, the second on line 7.
	res := Run(context.Background(), parseChecks(t, "no-placeholders"), []Output{bad}, env)
	if len(res[0].Findings) != 2 || res[0].Findings[0].Line != 4 || res[0].Findings[1].Line != 7 {
		t.Errorf("placeholder findings = %+v", res[0].Findings)
	}
}

// allowAll permits every command, as a trusted workspace's permit
// permits the checks it names.
var allowAll = act.PermitFunc(func(act.Action) error { return nil })

func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	env := Env{StageDir: dir, Stage: "01-x", Workspace: dir, Permit: allowAll}
	res := Run(context.Background(), parseChecks(t, `run: echo "FIX: add a summary"; echo noise; exit 1`), nil, env)
	if res[0].OK || len(res[0].Findings) != 1 || res[0].Findings[0].Message != "add a summary" {
		t.Errorf("FIX lines: %+v", res[0])
	}
	res = Run(context.Background(), parseChecks(t, `run: test "$ICM_STAGE" = 01-x`), nil, env)
	if !res[0].OK {
		t.Errorf("ICM_STAGE not set: %+v", res[0])
	}
	res = Run(context.Background(), parseChecks(t, "run: exit 3"), nil, env)
	if res[0].OK || !strings.Contains(res[0].Findings[0].Message, "status 3") {
		t.Errorf("exit 3: %+v", res[0])
	}
}

// A `run:` check asks its permit before it starts, as what it is (a
// contract's check or a test case's): refused, nothing runs and the
// check fails saying why.
func TestARefusedRunCheckNeverRuns(t *testing.T) {
	for _, kind := range []act.Kind{"", act.CaseCheck} {
		dir := t.TempDir()
		var asked []act.Action
		deny := act.PermitFunc(func(a act.Action) error { asked = append(asked, a); return errors.New("not trusted") })
		env := Env{StageDir: dir, Stage: "01-x", Workspace: dir, Permit: deny, RunKind: kind}
		res := Run(context.Background(), parseChecks(t, "run: touch ran"), nil, env)
		if res[0].OK || len(res[0].Findings) != 1 || !strings.Contains(res[0].Findings[0].Message, "not trusted") {
			t.Errorf("refused: %+v", res[0])
		}
		if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
			t.Error("the refused check ran")
		}
		want := kind
		if want == "" {
			want = act.Check
		}
		if len(asked) != 1 || asked[0].Kind != want || asked[0].Named.Line != "touch ran" || asked[0].Dir != dir {
			t.Errorf("the permit was asked %+v, want one %s of `touch ran` in %s", asked, want, dir)
		}
	}
}

func TestCodeBlocksUnavailable(t *testing.T) {
	dir := t.TempDir()
	o := write(t, dir, "a.md", "```python\nprint(1)\n```\n")
	res := Run(context.Background(), parseChecks(t, "code-blocks parse"), []Output{o}, Env{Stage: "01-x"})
	if res[0].OK {
		t.Error("a code-blocks check without a checker must not pass")
	}
}
