package contract

import (
	"github.com/icm-tool/icm/server/internal/testutil/wstest"

	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) (*Contract, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Parse("/ws/"+name, src), string(src)
}

// shape is the notation-independent meaning of a contract.
type shape struct {
	Inputs  []string
	Tools   string
	Process string
	Outputs []string
}

func shapeOf(c *Contract) shape {
	var s shape
	for _, in := range c.Inputs {
		scope := ""
		if in.Scope != nil {
			scope = "#" + strings.Join(in.Scope.Headings, "|")
		}
		s.Inputs = append(s.Inputs, strings.Join([]string{string(rune('0' + in.Layer)), in.Path + scope}, " "))
	}
	if c.Tools != nil && c.Tools.None {
		s.Tools = "none"
	}
	s.Process = c.Process
	for _, o := range c.Outputs {
		s.Outputs = append(s.Outputs, o.Path)
	}
	return s
}

func TestTableNotationMatchesList(t *testing.T) {
	list, _ := parseFile(t, "list.md")
	table, _ := parseFile(t, "table.md")
	if got, want := shapeOf(table), shapeOf(list); !reflect.DeepEqual(got, want) {
		t.Fatalf("table notation parses to\n%+v\nlist notation to\n%+v", got, want)
	}
	if list.InputNotation != "list" || table.InputNotation != "table" {
		t.Errorf("notations = %q, %q", list.InputNotation, table.InputNotation)
	}
	for _, c := range []*Contract{list, table} {
		for _, f := range c.Findings {
			if f.Severity <= Warning {
				t.Errorf("%s: unexpected finding %s", c.File, f)
			}
		}
	}
	if list.Title != "03-outline" || table.Title != "Stage 03: Outline" {
		t.Errorf("titles = %q, %q", list.Title, table.Title)
	}
}

func TestRangesPointAtText(t *testing.T) {
	for _, name := range []string{"list.md", "table.md", "full.md"} {
		c, src := parseFile(t, name)
		for _, in := range c.Inputs {
			if got := src[in.PathRange.Start:in.PathRange.End]; got != in.Path {
				t.Errorf("%s: input path range covers %q, want %q", name, got, in.Path)
			}
			if in.Scope != nil && c.InputNotation == "list" {
				if got := src[in.Scope.Range.Start:in.Scope.Range.End]; got != in.Scope.Raw {
					t.Errorf("%s: scope range covers %q", name, got)
				}
			}
		}
		for _, o := range c.Outputs {
			got := src[o.PathRange.Start:o.PathRange.End]
			if got != o.Name && !strings.HasSuffix(o.Path, got) {
				t.Errorf("%s: output range covers %q for %s", name, got, o.Path)
			}
		}
		if c.Tools != nil {
			for _, s := range c.Tools.Servers {
				if got := src[s.ServerRange.Start:s.ServerRange.End]; got != s.Server {
					t.Errorf("%s: server range covers %q", name, got)
				}
				for _, tn := range s.Tools {
					if got := src[tn.Range.Start:tn.Range.End]; got != tn.Name {
						t.Errorf("%s: tool range covers %q, want %q", name, got, tn.Name)
					}
				}
			}
		}
		if got := src[c.TitleRange.Start:c.TitleRange.End]; !strings.HasSuffix(got, c.Title) {
			t.Errorf("%s: title range covers %q", name, got)
		}
	}
}

func TestFullContract(t *testing.T) {
	c, src := parseFile(t, "full.md")
	for _, f := range c.Findings {
		if f.Severity <= Warning {
			t.Errorf("unexpected finding %s", f)
		}
	}
	allowed := c.Tools.Allowed()
	want := map[string][]string{"search-server": {"search"}, "browser-server": {"summarize", "extract", "fetch_snippet"}, "camofox": nil}
	if !reflect.DeepEqual(allowed, want) {
		t.Errorf("allowed = %v", allowed)
	}
	if c.ForEach == nil || c.ForEach.Item != "objective" || c.ForEach.Path != "../01-scope/output/objectives.md" {
		t.Errorf("for each = %+v", c.ForEach)
	} else if got := src[c.ForEach.PathRange.Start:c.ForEach.PathRange.End]; got != c.ForEach.Path {
		t.Errorf("for each path range covers %q", got)
	}
	m := c.Model
	if m == nil || !reflect.DeepEqual(m.Models, []string{"qwen3.5:9b", "llama3.1:8b"}) || *m.Temperature != 0.2 || m.NumCtx != 16384 || *m.Think || m.Format != "references/notes.schema.json" {
		t.Errorf("model = %+v", m)
	}
	var kinds []string
	for _, v := range c.Verify {
		kinds = append(kinds, v.Kind)
	}
	if strings.Join(kinds, ",") != "non-empty,headings,max-words,sources,no-placeholders,json-schema,code-blocks,run" {
		t.Errorf("verify kinds = %v", kinds)
	}
	if c.Verify[1].Min != 2 || c.Verify[1].Max != 8 || c.Verify[2].Max != 2000 || c.Verify[7].Arg != "./check.sh" {
		t.Errorf("verify args = %+v", c.Verify)
	}
	if c.Script == nil || c.Script.TimeoutSeconds != 30 || !strings.Contains(c.Script.Command, "echo hello") {
		t.Errorf("script = %+v", c.Script)
	}
	if c.Gate == nil || !c.Gate.Auto {
		t.Errorf("gate = %+v", c.Gate)
	}
	if len(c.Outputs) != 2 || c.Outputs[1].Path != "output/sources.json" || c.Outputs[1].Format != "the raw list" {
		t.Errorf("outputs = %+v", c.Outputs)
	}
	var unknown []string
	for _, f := range c.Findings {
		if f.Code == CodeUnknownSection {
			unknown = append(unknown, f.Message)
		}
	}
	if len(unknown) != 1 || !strings.Contains(unknown[0], "Notes for humans") {
		t.Errorf("unknown-section findings = %v", unknown)
	}
	var cp *Section
	for i := range c.Sections {
		if c.Sections[i].Kind == KindCheckpoints {
			cp = &c.Sections[i]
		}
	}
	if cp == nil || cp.Table == nil || len(cp.Table.Rows) != 1 || cp.Table.Rows[0][1] != "Sources" {
		t.Errorf("checkpoints table = %+v", cp)
	}
}

func TestBadContract(t *testing.T) {
	c, src := parseFile(t, "bad.md")
	want := []struct {
		code string
		at   string // text the finding's range starts with
	}{
		{CodeBadLayer, "7"},
		{CodeBadLayer, "x"},
		{CodeLayerKind, "working"},
		{CodeBadTools, "search-server search"},
		{CodeBadTools, "browser-server:"},
		{CodeBadForEach, "every module"},
		{CodeOutputLocation, "results/"},
		{CodeOutputLocation, "../escape.md"},
		{CodeBadVerify, "spelling"},
		{CodeBadVerify, "headings many"},
		{CodeBadGate, "maybe"},
		{CodeMissingSection, "Stage: 09-bad"},
	}
	got := map[string]bool{}
	for _, f := range c.Findings {
		got[f.Code+"@"+src[f.Range.Start:min(f.Range.End, len(src))]] = true
	}
	for _, w := range want {
		found := false
		for k := range got {
			if strings.HasPrefix(k, w.code+"@"+w.at) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing finding %s at %q; got %v", w.code, w.at, got)
		}
	}
}

func TestContractTooLong(t *testing.T) {
	src := "# Stage: x\n\n## Process\n" + strings.Repeat("line\n", 90) + "## Outputs\n- a.md -> output/\n"
	c := Parse("/x", []byte(src))
	n := 0
	for _, f := range c.Findings {
		if f.Code == CodeContractTooLong {
			n++
			if f.Severity != Warning {
				t.Errorf("too-long severity = %s", f.Severity)
			}
		}
	}
	if n != 1 {
		t.Errorf("contract-too-long findings = %d, want 1", n)
	}
}

func TestTemplateFixturesParse(t *testing.T) {
	root := wstest.TemplateFixtures(t)
	paths, _ := filepath.Glob(filepath.Join(root, "*", "stages", "*", "CONTEXT.md"))
	if len(paths) < 15 {
		t.Fatalf("found %d fixture contracts under %s", len(paths), root)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := Parse(p, src)
		for _, f := range c.Findings {
			if f.Severity == Error {
				t.Errorf("%s: %s", p, f)
			}
		}
		if len(c.Inputs) == 0 || len(c.Outputs) == 0 || c.Process == "" {
			t.Errorf("%s: inputs=%d outputs=%d process=%d bytes", p, len(c.Inputs), len(c.Outputs), len(c.Process))
		}
	}
}

func TestSourcesFromToolsNeedsTools(t *testing.T) {
	base := "# Stage: x\n## Process\ngo\n## Outputs\n- a.md -> output/\n## Verify\n- sources-from-tools\n"
	warned := func(src string) bool {
		for _, f := range Parse("/x", []byte(src)).Findings {
			if f.Code == CodeBadVerify && strings.Contains(f.Message, "needs tools") {
				return true
			}
		}
		return false
	}
	if !warned(base) {
		t.Error("no warning for sources-from-tools in a stage without tools")
	}
	if warned(base + "## Tools\nsearch-server: search\n") {
		t.Error("a warning for sources-from-tools in a stage with tools")
	}
}
