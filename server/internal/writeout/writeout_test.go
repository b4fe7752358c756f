package writeout

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
)

func parse(t *testing.T, outputs string) *contract.Contract {
	t.Helper()
	c := contract.Parse("/ws/stages/02-plan/CONTEXT.md", []byte("# Stage: 02-plan\n\n## Process\nPlan.\n\n## Outputs\n"+outputs))
	for _, f := range c.Findings {
		if f.Severity == contract.Error {
			t.Fatalf("contract: %s", f.Message)
		}
	}
	return c
}

func TestNeeded(t *testing.T) {
	for _, tc := range []struct {
		outputs string
		want    bool
	}{
		{"- plan.md -> output/\n", false},
		{"- plan.md -> output/\n- budget.md -> output/\n", true},
		{"- [trip-slug]-plan.md -> output/\n", true},
		{"| Artifact | Location |\n|---|---|\n| Site | output/site/ |\n", true},
	} {
		if got := Needed(parse(t, tc.outputs)); got != tc.want {
			t.Errorf("Needed(%q) = %v, want %v", tc.outputs, got, tc.want)
		}
	}
}

// A write is kept only when it fits a declared output: its name, its
// pattern (each placeholder one name, a YYYY-MM-DD date digits) or its
// folder; everything else is refused with what may be written instead.
func TestAcceptFitsDeclaredOutputs(t *testing.T) {
	c := parse(t, "- [trip-slug]-plan.md -> output/\n- log-YYYY-MM-DD.md -> output/\n- summary.md -> output/\n- output/maps/\n")
	set := NewSet("stages/02-plan", c, 1000)
	for _, p := range []string{
		"output/coast-road-plan.md", "coast-plan.md", "./output/summary.md", "stages/02-plan/output/log-2026-12-01.md",
		"output/maps/day1/route.svg",
	} {
		if _, err := set.Accept(p, "x"); err != nil {
			t.Errorf("Accept(%q) = %v, want it kept", p, err)
		}
	}
	for p, why := range map[string]string{
		"output/notes.md":          "fits none",
		"output/a/b-plan.md":       "fits none",
		"output/log-december.md":   "fits none",
		"../secrets.md":            "climbs out",
		"/etc/passwd":              "absolute",
		"output/.hidden-plan.md":   "hidden",
		`output\win-plan.md`:       "forward slashes",
		"C:/x-plan.md":             "drive",
		"output//x-plan.md":        "empty part",
		"":                         "empty",
		"stages/03-other/output/x": "fits none",
	} {
		if _, err := set.Accept(p, "x"); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Accept(%q) = %v, want a refusal saying %q", p, err, why)
		}
	}
	if _, err := set.Accept("output/big-plan.md", strings.Repeat("x", 1001)); err == nil {
		t.Error("a file over the size cap was kept")
	}
	if set.Len() != 5 || len(set.Missing()) != 0 {
		t.Errorf("kept %d files, missing %v", set.Len(), set.Missing())
	}
}

func TestStatusNamesWhatIsLeft(t *testing.T) {
	set := NewSet("s", parse(t, "- a.md -> output/\n- [x]-b.md -> output/\n"), 0)
	rel, err := set.Accept("a.md", "one")
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Status(rel, 3); !strings.Contains(got, "Still to write: output/[x]-b.md (fill in [x])") {
		t.Errorf("status = %q", got)
	}
}

func TestParsePlain(t *testing.T) {
	answer := "Here are the files.\n\npath: output/a-plan.md\n````markdown\n# Plan\n\n```sh\nls\n```\n````\n\n**path:** `output/summary.md`\n\n```\nDone.\n```\n"
	files, err := ParsePlain(answer)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Path != "output/a-plan.md" || files[0].Content != "# Plan\n\n```sh\nls\n```\n" ||
		files[1].Path != "output/summary.md" || files[1].Content != "Done.\n" {
		t.Errorf("files = %q", files)
	}
	for answer, want := range map[string]string{
		"path: output/a.md\nno fence here\n":     "line 2",
		"path: output/a.md\n```\nnever closed\n": "never closed",
		"path:\n```\nx\n```\n":                   "names no file",
		"path: output/a.md\n":                    "no fenced block",
	} {
		if _, err := ParsePlain(answer); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePlain(%q) = %v, want an error saying %q", answer, err, want)
		}
	}
	if files, err := ParsePlain("Just prose, no files."); err != nil || files != nil {
		t.Errorf("prose: %v, %v", files, err)
	}
}

func TestParseJSON(t *testing.T) {
	files, err := ParseJSON(`{"files":[{"path":"output/a.md","content":"A"}]}`)
	if err != nil || len(files) != 1 || files[0].Path != "output/a.md" || files[0].Content != "A" {
		t.Errorf("files = %v, %v", files, err)
	}
	for _, bad := range []string{`{"files":[{"path":"output/a.md"}]}`, `not json`} {
		if _, err := ParseJSON(bad); err == nil {
			t.Errorf("ParseJSON(%q) accepted", bad)
		}
	}
}

func FuzzParsePlain(f *testing.F) {
	f.Add("path: output/a.md\n```\nx\n```\n")
	f.Add("path: a\n````\n```\n````\npath: b\n~~~\n~~~\n")
	f.Fuzz(func(t *testing.T, s string) {
		files, err := ParsePlain(s)
		if err == nil {
			for _, fl := range files {
				if fl.Path == "" {
					t.Fatal("a file without a path")
				}
			}
		}
	})
}

// The schema's path pattern admits the names a constrained sampler may
// write for each declared output and nothing the outputs refuse.
func TestSchemaPatternFitsTheOutputs(t *testing.T) {
	c := parse(t, "- [trip-slug]-plan.md -> output/\n- log-YYYY-MM-DD.md -> output/\n- summary.md -> output/\n- output/maps/\n")
	var v struct {
		Properties struct {
			Files struct {
				Items struct {
					Properties struct {
						Path struct{ Pattern string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(Schema(Targets(c)), &v); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(v.Properties.Files.Items.Properties.Path.Pattern)
	set := NewSet("s", c, 0)
	for _, p := range []string{"output/coast-road-plan.md", "output/log-2026-12-01.md", "output/summary.md", "output/maps/day-1.svg"} {
		if !re.MatchString(p) {
			t.Errorf("the pattern %s refuses %s", re, p)
		}
		if _, err := set.Accept(p, "x"); err != nil {
			t.Errorf("%s fits the schema but icm refuses it: %v", p, err)
		}
	}
	for _, p := range []string{"output/notes.md", "output/../x-plan.md", "output/Coast-plan.md", "output/maps/a/b.svg"} {
		if re.MatchString(p) {
			t.Errorf("the pattern admits %s", p)
		}
	}
}
