package testcase

import (
	"os"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// at returns the case, its contract, the text with the cursor marker
// removed and the cursor's offset.
func at(t *testing.T, ws *workspace.Workspace, text string) (*workspace.Stage, *contract.Contract, *Case, []byte, int) {
	t.Helper()
	st, _ := ws.Stage("01-a")
	off := strings.Index(text, "|")
	src := []byte(strings.Replace(text, "|", "", 1))
	csrc, _ := os.ReadFile(st.Contract)
	con := contract.Parse(st.Contract, csrc)
	c := Parse(Ref{Stage: st.Name, Name: "good", File: st.Dir + "/tests/good.md", Dir: st.Dir + "/tests"}, src)
	return st, con, c, src, off
}

func labels(ss []Suggestion) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Label)
	}
	return strings.Join(out, ",")
}

func TestComplete(t *testing.T) {
	ws := open(t)
	for _, tc := range []struct {
		name, text, want string
	}{
		{"sections not there yet", "# Case: x\n\n## Inputs\n- input.md <- shared/idea.md\n\n##|", "## Expect"},
		{"a stand-in target", "# Case: x\n\n## Inputs\n- |", "../../_config/rules.md,input.md"},
		{"targets not replaced yet", "# Case: x\n\n## Inputs\n- input.md <- shared/idea.md\n- |", "../../_config/rules.md"},
		{"an inline target", "# Case: x\n\n## Inputs\n### |", "../../_config/rules.md,input.md"},
		{"the stand-in's file, without other cases", "# Case: x\n\n## Inputs\n- input.md <- |", "shared/idea.md,shared/not-a-case.txt,shared/rules.md"},
		{"expectations by prefix", "# Case: x\n\n## Expect\n- no|", "not-contains,non-empty,no-placeholders"},
		{"an output heading", "# Case: x\n\n## Expect\n- non-empty\n\n### |", "a.md,b.json"},
		{"nothing after the word", "# Case: x\n\n## Expect\n- contains |", ""},
		{"nothing outside a section", "# Case: x\n\n- |", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, con, c, src, off := at(t, ws, tc.text)
			if got := labels(Complete(ws, st, con, c, src, off)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	st, con, c, src, off := at(t, ws, "# Case: x\n\n## Expect\n- rub|")
	ss := Complete(ws, st, con, c, src, off)
	if len(ss) != 1 || ss[0].Insert != "rubric >= ${1:7}: $2" || !ss[0].Snippet || string(src[ss[0].From:off]) != "rub" || !strings.Contains(ss[0].Doc, "Decided in code") {
		t.Errorf("rubric: %+v", ss)
	}
	st, con, c, src, off = at(t, ws, "# Case: x\n\n## Inputs\n- inp|")
	ss = Complete(ws, st, con, c, src, off)
	if len(ss) != 2 || ss[1].Insert != "input.md <- " || string(src[ss[1].From:off]) != "inp" || ss[1].Detail != "working input of 01-a" {
		t.Errorf("target: %+v", ss)
	}
}

func TestHover(t *testing.T) {
	ws := open(t)
	st, _ := ws.Stage("01-a")
	c, _ := checkOf(t, ws, "01-a", "good")
	src, _ := os.ReadFile(c.File)
	csrc, _ := os.ReadFile(st.Contract)
	con := contract.Parse(st.Contract, csrc)
	hover := func(word string) string {
		t.Helper()
		off := strings.Index(string(src), word)
		text, r, ok := Hover(ws, st, con, c, off+1)
		if !ok || r.Start > off+1 || r.End < off+1 {
			t.Fatalf("no hover on %q", word)
		}
		return text
	}
	if h := hover("input.md"); !strings.Contains(h, "Replaces **input.md** (working input of 01-a)") || !strings.Contains(h, "# An idea kept") {
		t.Errorf("target hover:\n%s", h)
	}
	if h := hover("shared/rules.md"); !strings.Contains(h, "pipeline/01-a/tests/shared/rules.md") || !strings.Contains(h, "# Rules for the case") {
		t.Errorf("file hover:\n%s", h)
	}
	if h := hover(`contains "x"`); !strings.HasPrefix(h, "**contains**: The output contains this text") || !strings.Contains(h, "first output, output/a.md") {
		t.Errorf("expectation hover:\n%s", h)
	}
	if h := hover("json-schema"); !strings.Contains(h, "Reads the output b.json") {
		t.Errorf("scoped expectation hover:\n%s", h)
	}
	if h := hover("Case: good"); !strings.Contains(h, "**Case 01-a/good**: 2 stand-in(s), 2 expectation(s), and the stage's Verify checks (`non-empty`)") {
		t.Errorf("title hover:\n%s", h)
	}
	if _, _, ok := Hover(ws, st, con, c, len(src)); ok {
		t.Error("a hover at the end of the file")
	}
}
