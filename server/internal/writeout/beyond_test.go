package writeout

import (
	"strings"
	"testing"
)

// A hidden file the contract declares (output/.env.example) is written:
// the tool lists it, so it must accept it. An undeclared hidden name is
// still refused.
func TestADeclaredHiddenOutputIsWritten(t *testing.T) {
	set := NewSet("stages/05-ship", parse(t, "- .env.example -> output/\n- notes.md -> output/\n"), 0)
	if _, err := set.Accept("output/.env.example", "PORT=8080\n"); err != nil {
		t.Errorf("the declared hidden output was refused: %v", err)
	}
	if _, err := set.Accept("output/.secrets", "x"); err == nil || !strings.Contains(err.Error(), "hidden") {
		t.Errorf("an undeclared hidden file: %v, want a refusal saying hidden", err)
	}
}

// A file's kind is checked as the model writes it: a .json must parse, a
// .csv must have a header and rows; the refusal says why, so the model
// can write it again.
func TestKindIsCheckedAtTheTool(t *testing.T) {
	set := NewSet("stages/02-plan", parse(t, "- leads.json -> output/\n- rows.csv -> output/\n- events.jsonl -> output/\n- table.tsv -> output/\n"), 0)
	for _, tc := range []struct{ path, content, why string }{
		{"output/leads.json", "# Leads\n\n- Ada\n", "not valid JSON"},
		{"output/leads.json", "", "not valid JSON"},
		{"output/rows.csv", "", "no rows"},
		{"output/rows.csv", "name,score\n", "no rows"},
		{"output/rows.csv", "name,score\nada,1\nbob\n", "not valid CSV"},
		{"output/events.jsonl", "{\"a\":1}\nnot json\n", "line 2"},
		{"output/table.tsv", "name\tscore\n", "no rows"},
	} {
		if _, err := set.Accept(tc.path, tc.content); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("Accept(%s, %q) = %v, want a refusal saying %q", tc.path, tc.content, err, tc.why)
		}
	}
	if set.Len() != 0 {
		t.Fatalf("refused files were kept: %d", set.Len())
	}
	for path, content := range map[string]string{
		"output/leads.json":   `{"leads": [{"name": "Ada"}]}`,
		"output/rows.csv":     "name,score\nada,1\n\"bob, jr\",2\n",
		"output/events.jsonl": "{\"a\":1}\n\n{\"a\":2}\n",
		"output/table.tsv":    "name\tscore\nada\t1\n",
	} {
		if _, err := set.Accept(path, content); err != nil {
			t.Errorf("Accept(%s) = %v, want it kept", path, err)
		}
	}
}

// A contract that names no output file lets the model write new files
// into output/, within bounds: no hidden names, nothing outside output/,
// nothing already there overwritten, at most MaxOpenFiles files. What it
// wrote is listed as written without a declaration.
func TestWithoutDeclaredOutputsNewFilesInOutputAreAccepted(t *testing.T) {
	c := parse(t, "- Lens review report with findings\n- Shield security report\n")
	set := NewSet("stages/04-review", c, 100).Protect(func(rel string) bool { return rel == "output/kept.md" })
	if !set.Open() {
		t.Fatal("a contract naming no output file does not open output/")
	}
	for _, p := range []string{"output/lens-review.md", "shield.md", "output/screens/notes.md"} {
		if _, err := set.Accept(p, "x"); err != nil {
			t.Errorf("Accept(%q) = %v, want it kept", p, err)
		}
	}
	for p, why := range map[string]string{
		"output/.env":           "hidden",
		"../../src/app.ts":      "climbs out",
		"output/kept.md":        "already there",
		"/etc/passwd":           "absolute",
		"output/big.md":         "limit",
		"output/broken.json":    "not valid JSON",
		"stages/04-review/x.md": "",
	} {
		content := "x"
		switch p {
		case "output/big.md":
			content = strings.Repeat("x", 101)
		case "output/broken.json":
			content = "{"
		}
		_, err := set.Accept(p, content)
		if p == "stages/04-review/x.md" {
			// The stage's own folder in front: output/x.md is meant.
			if err != nil {
				t.Errorf("Accept(%q) = %v", p, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Accept(%q) = %v, want a refusal saying %q", p, err, why)
		}
	}
	if got := strings.Join(set.Undeclared(), ", "); got != "output/lens-review.md, output/screens/notes.md, output/shield.md, output/x.md" {
		t.Errorf("undeclared = %s", got)
	}
	if m := set.Missing(); len(m) != 0 {
		t.Errorf("missing = %v, want none: nothing was declared", m)
	}
	for i := set.Len(); i < MaxOpenFiles; i++ {
		if _, err := set.Accept("output/n"+strings.Repeat("x", i)+".md", "x"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := set.Accept("output/one-more.md", "x"); err == nil || !strings.Contains(err.Error(), "most") {
		t.Errorf("file %d: %v, want a refusal at the cap", MaxOpenFiles+1, err)
	}
	if d := ToolDescription(Targets(c)); !strings.Contains(d, "output/") {
		t.Errorf("the tool's description does not say where to write: %s", d)
	}
}

// A file the contract names outside output/ is accepted where it names
// it, and said to be outside, so the run keeps it as a proposed change.
func TestOutputsOutsideOutputAreAccepted(t *testing.T) {
	c := parse(t, "| Artifact | Location |\n|---|---|\n| Review | `../../pieces/[piece-slug]/r[N]-review.md` |\n| Map | `_config/endpoint-map.md` |\n| Notes | `output/notes.md` |\n")
	if len(c.ExternalOutputs) != 2 {
		t.Fatalf("external outputs = %+v", c.ExternalOutputs)
	}
	set := NewSet("stages/02-audience-fit", c, 0)
	for _, p := range []string{"../../pieces/coast-road/r2-review.md", "_config/endpoint-map.md", "output/notes.md"} {
		rel, err := set.Accept(p, "x")
		if err != nil {
			t.Errorf("Accept(%q) = %v, want it kept", p, err)
			continue
		}
		if want := !strings.HasPrefix(p, "output/"); set.External(rel) != want {
			t.Errorf("External(%s) = %v, want %v", rel, !want, want)
		}
	}
	for p, why := range map[string]string{
		"../../pieces/a/b/r2-review.md": "fits none",
		"../../other/x.md":              "fits none",
		"../../pieces/.x/r2-review.md":  "hidden",
		"_config/../../../etc/x.md":     "fits none",
	} {
		if _, err := set.Accept(p, "x"); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Accept(%q) = %v, want a refusal saying %q", p, err, why)
		}
	}
	if m := set.Missing(); len(m) != 0 {
		t.Errorf("missing = %v", m)
	}
}
