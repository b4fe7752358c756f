package testcase

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Suggestion is one completion for a place in a case file.
type Suggestion struct {
	// Label is what the list shows; Insert replaces the text from From to
	// the cursor. When Snippet is set, Insert uses LSP snippet syntax ($1).
	Label, Insert string
	Snippet       bool
	Detail, Doc   string
	From          int
	// Kind is "section", "keyword", "input", "output" or "file".
	Kind string
}

// expectationForms are the completions of an Expect line: the word, a
// snippet of its whole form, and what it checks.
var expectationForms = []struct{ label, snippet, doc string }{
	{"contains", `contains "$1"`, "The output contains this text (exact, case-sensitive)."},
	{"not-contains", `not-contains "$1"`, "The output does not contain this text; a failure names the line."},
	{"matches", "matches `$1`", "A regular expression (Go syntax) matches somewhere in the output; `(?i)` ignores case, `(?m)` makes ^ and $ match at line ends."},
	{"sections", "sections ${1:2}..${2:6}", "The output has N to M `##` sections."},
	{"rubric", "rubric >= ${1:7}: $2", "A model scores, 0 to 10 through structured output, how well the output meets the criterion; the case passes when the score reaches the threshold (7 when not given). Decided in code."},
	{"verify", "verify ${1|passes,fails|}", "The stage's own Verify checks all pass, or at least one fails (for a case that feeds the stage bad material on purpose). Without this line they must pass."},
	{"non-empty", "non-empty", "Every output the line reads has text."},
	{"headings", "headings ${1:2}..${2:8}", "The number of `##` sections is in range (as sections counts)."},
	{"max-words", "max-words ${1:500}", "The word count is at most N."},
	{"min-words", "min-words ${1:100}", "The word count is at least N."},
	{"sources", "sources", "Every `##` section has a `Sources:` line with a URL that, in a stage with tools, this run's tool calls returned or read."},
	{"sources-from-tools", "sources-from-tools", "Every URL in the output was returned or read by a tool call of this run."},
	{"no-placeholders", "no-placeholders", "No `{{...}}`, no TODO or TBD is left."},
	{"json-schema", "json-schema ${1:schema.json}", "The output is JSON that the schema file accepts (looked up next to the case, then in the stage folder)."},
	{"code-blocks", "code-blocks ${1|parse,run|}", "Every fenced Python or Go block parses (and runs in the sandbox)."},
	{"run", "run: $1", "The command exits 0 when run in the stage folder of the test copy; its stdout lines starting FIX: are the findings."},
}

// ExpectationDoc says what an expectation kind checks ("" when unknown).
func ExpectationDoc(kind string) string {
	for _, f := range expectationForms {
		if f.label == kind {
			return f.doc
		}
	}
	return ""
}

var (
	headingLine = regexp.MustCompile(`^\s{0,3}(#{2,3})\s*([^#]*)$`)
	listLine    = regexp.MustCompile(`^(\s*[-*+]\s+)(.*)$`)
)

// Complete offers what may be typed at off in a case file: the section
// headings, the files the stage reads (as stand-in targets), the files
// next to the case (as their content), the stage's outputs (under Expect)
// and the expectation forms.
func Complete(ws *workspace.Workspace, st *workspace.Stage, con *contract.Contract, c *Case, src []byte, off int) []Suggestion {
	if off < 0 || off > len(src) {
		return nil
	}
	lineStart := bytes.LastIndexByte(src[:off], '\n') + 1
	prefix := string(src[lineStart:off])
	section := sectionAt(src, off)
	if m := headingLine.FindStringSubmatchIndex(prefix); m != nil {
		from := lineStart + m[2]
		if prefix[m[2]:m[3]] == "##" {
			return sectionSuggestions(src, from)
		}
		switch section {
		case SectionInputs:
			return targetSuggestions(ws, st, con, c, from, "### ", "")
		case SectionExpect:
			return outputSuggestions(con, from, "### ")
		}
		return nil
	}
	m := listLine.FindStringSubmatchIndex(prefix)
	if m == nil {
		return nil
	}
	body := prefix[m[4]:]
	bodyStart := lineStart + m[4]
	switch section {
	case SectionInputs:
		if i := strings.Index(body, "<-"); i >= 0 {
			at := i + 2
			for at < len(body) && body[at] == ' ' {
				at++
			}
			return fileSuggestions(ws.Disk, c, bodyStart+at, nil)
		}
		return targetSuggestions(ws, st, con, c, bodyStart, "", " <- ")
	case SectionExpect:
		if rest, ok := strings.CutPrefix(body, "json-schema "); ok {
			return fileSuggestions(ws.Disk, c, off-len(rest), func(p string) bool { return strings.HasSuffix(p, ".json") })
		}
		if strings.Contains(body, " ") {
			return nil
		}
		var out []Suggestion
		for _, f := range expectationForms {
			if strings.HasPrefix(f.label, body) {
				out = append(out, Suggestion{Label: f.label, Insert: f.snippet, Snippet: true, Detail: "expectation", Doc: f.doc, From: bodyStart, Kind: "keyword"})
			}
		}
		return out
	}
	return nil
}

// sectionAt says which case section holds off.
func sectionAt(src []byte, off int) string {
	for _, s := range markdown.Parse(src).Sections(2) {
		if off >= s.Range.Start && off <= s.Range.End {
			return SectionKind(s.Heading.Text)
		}
	}
	return ""
}

func sectionSuggestions(src []byte, from int) []Suggestion {
	have := map[string]bool{}
	for _, s := range markdown.Parse(src).Sections(2) {
		have[SectionKind(s.Heading.Text)] = true
	}
	var out []Suggestion
	for _, s := range []struct{ name, kind, doc string }{
		{"Inputs", SectionInputs, "The stand-ins: `- REPLACED <- FILE`, or a `### REPLACED` heading over a fenced block."},
		{"Expect", SectionExpect, "What the output must show, one expectation per line."},
	} {
		if !have[s.kind] {
			out = append(out, Suggestion{Label: "## " + s.name, Insert: "## " + s.name, Doc: s.doc, From: from, Kind: "section"})
		}
	}
	return out
}

// targetSuggestions lists the files the stage reads that the case does
// not replace yet, as the contract writes them.
func targetSuggestions(ws *workspace.Workspace, st *workspace.Stage, con *contract.Contract, c *Case, from int, before, after string) []Suggestion {
	if con == nil {
		return nil
	}
	replaced := map[string]bool{}
	for _, in := range c.Inputs {
		if abs, err := Target(ws, st, in); err == nil {
			replaced[abs] = true
		}
	}
	var out []Suggestion
	for abs, in := range Reads(ws, st, con) {
		if replaced[abs] {
			continue
		}
		detail := fmt.Sprintf("layer %d input of %s", in.Layer, st.Name)
		if in.Layer == contract.LayerWorking {
			detail = fmt.Sprintf("working input of %s", st.Name)
		}
		if _, err := ws.Files.Stat(abs); err != nil {
			detail += " (not in the workspace: the case must give it)"
		}
		out = append(out, Suggestion{Label: in.Path, Insert: before + in.Path + after, Detail: detail, From: from, Kind: "input"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

func outputSuggestions(con *contract.Contract, from int, before string) []Suggestion {
	if con == nil {
		return nil
	}
	var out []Suggestion
	for _, o := range con.Outputs {
		if o.Templated || o.Dir {
			continue
		}
		name := path.Base(o.Path)
		out = append(out, Suggestion{Label: name, Insert: before + name, Detail: "output " + o.Path, From: from, Kind: "output"})
	}
	return out
}

// maxFileSuggestions bounds the files offered at once.
const maxFileSuggestions = 200

// fileSuggestions lists files under the case's folder (a case kept as a
// file: under tests/), relative to it, but case files. The folder is
// walked through the workspace's Root (disk): one reached through a link
// out of the workspace offers nothing.
func fileSuggestions(disk *workspace.Root, c *Case, from int, keep func(string) bool) []Suggestion {
	var out []Suggestion
	_ = disk.WalkDir(c.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= maxFileSuggestions {
			return filepath.SkipDir
		}
		// The walk names files below the workspace; cases name them absolute.
		p = filepath.Join(disk.Dir(), filepath.FromSlash(p))
		if d.IsDir() {
			if p != c.Dir && caseFileIn(disk, p) != "" {
				return filepath.SkipDir // another case's folder
			}
			return nil
		}
		if p == c.File || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(c.Dir, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if !c.Folder && !strings.Contains(rel, "/") && strings.EqualFold(filepath.Ext(rel), ".md") {
			return nil // another case (or the folder's README), not a stand-in
		}
		if keep != nil && !keep(rel) {
			return nil
		}
		out = append(out, Suggestion{Label: rel, Insert: rel, Detail: sizeOf(d), From: from, Kind: "file"})
		return nil
	})
	return out
}

// sizeOf is the size of a listed file, from its entry (no second lookup).
func sizeOf(d fs.DirEntry) string {
	fi, err := d.Info()
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d bytes", fi.Size())
}
