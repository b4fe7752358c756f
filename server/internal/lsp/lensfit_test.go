package lsp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// shownLens is a lens as a person sees it: its line and title, and what a
// state lens holds: the state in full (its hover) and the line's other
// actions (its menu).
type shownLens struct {
	Line    int
	Title   string
	Command string
	State   string
	Actions []string
}

// maxLensTitle is the longest a lens title may be: two of them and the
// separator fit beside the editor's gutter in a 1280 px window.
const maxLensTitle = 48

// maxLineWidth is the most a line's lenses may take together, titles
// and the " | " between them: two of the longest. A line may hold a
// third lens only when the three are that short (a For each output's
// first line: its state, its action and Re-run item 1).
const maxLineWidth = 2*maxLensTitle + 3

// shownLenses asks for a file's lenses and fails the test unless they
// fit: at most three on a line and together no wider than two of the
// longest, each title short.
func shownLenses(t *testing.T, s *session, file string) []shownLens {
	t.Helper()
	var raw []struct {
		Range struct {
			Start struct{ Line int } `json:"start"`
		} `json:"range"`
		Command struct {
			Title     string           `json:"title"`
			Command   string           `json:"command"`
			Arguments []map[string]any `json:"arguments"`
		} `json:"command"`
	}
	if err := s.TextDocumentCall("textDocument/codeLens", file, nil, &raw); err != nil {
		t.Fatal(err)
	}
	var out []shownLens
	perLine := map[int][]string{}
	for _, l := range raw {
		sl := shownLens{Line: l.Range.Start.Line, Title: l.Command.Title, Command: l.Command.Command}
		if len(l.Command.Arguments) == 1 {
			sl.State, _ = l.Command.Arguments[0]["state"].(string)
			acts, _ := json.Marshal(l.Command.Arguments[0]["actions"])
			var as []struct{ Title, Command string }
			_ = json.Unmarshal(acts, &as)
			for _, a := range as {
				if a.Command == "" {
					t.Errorf("%s: the action %q of %q has no command", file, a.Title, sl.Title)
				}
				sl.Actions = append(sl.Actions, a.Title)
			}
		}
		perLine[sl.Line] = append(perLine[sl.Line], sl.Title)
		if n := utf8.RuneCountInString(sl.Title); n > maxLensTitle {
			t.Errorf("%s: the lens %q is %d characters, over %d", file, sl.Title, n, maxLensTitle)
		}
		out = append(out, sl)
	}
	for line, ts := range perLine {
		width := 3 * (len(ts) - 1)
		for _, title := range ts {
			width += utf8.RuneCountInString(title)
		}
		if len(ts) > 3 || width > maxLineWidth {
			t.Errorf("%s: line %d holds %d lenses, %d characters wide: %q", file, line, len(ts), width, ts)
		}
	}
	return out
}

// onLine is the titles of a line's lenses, joined by " | ".
func onLine(ls []shownLens, line int) string {
	var ts []string
	for _, l := range ls {
		if l.Line == line {
			ts = append(ts, l.Title)
		}
	}
	return strings.Join(ts, " | ")
}

// lensNamed is the lens titled title (the zero lens when there is none).
func lensNamed(ls []shownLens, title string) shownLens {
	for _, l := range ls {
		if l.Title == title {
			return l
		}
	}
	return shownLens{}
}

func (l shownLens) String() string {
	return fmt.Sprintf("%d %q (%s) state=%q actions=%q", l.Line, l.Title, l.Command, l.State, l.Actions)
}
