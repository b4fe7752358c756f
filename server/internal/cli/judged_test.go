package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// judgedFile is one workspace of the shared corpus (other people's, read in
// place from ../shared/) with what icm said of it, judged by hand: see
// testdata/judged/*.txt.
type judgedFile struct {
	name, workspace, repo string
	gapsBefore            int
	findings              []judgedFinding
	// loads maps a stage to the parts (layer and label) it must load.
	loads map[string][]string
}

type judgedFinding struct {
	key                    string // FILE:LINE CODE
	beforeSev, afterSev    string // E, W, I, one letter per finding, or "-"
	beforeVerdict, verdict string // true, false, miss or "-"
	reason                 string
}

func readJudged(t *testing.T, path string) judgedFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	j := judgedFile{name: strings.TrimSuffix(filepath.Base(path), ".txt"), loads: map[string][]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "workspace":
			j.workspace = rest
		case "repo":
			j.repo = rest
		case "gaps-before":
			fmt.Sscan(rest, &j.gapsBefore)
		case "finding":
			fs := strings.Fields(rest)
			if len(fs) < 4 {
				t.Fatalf("%s:%d: want FILE:LINE CODE BEFORE AFTER REASON", path, n)
			}
			jf := judgedFinding{key: fs[0] + " " + fs[1], reason: strings.Join(fs[4:], " ")}
			var ok1, ok2 bool
			jf.beforeSev, jf.beforeVerdict, ok1 = strings.Cut(fs[2], "/")
			jf.afterSev, jf.verdict, ok2 = strings.Cut(fs[3], "/")
			if !ok1 || !ok2 || jf.reason == "" {
				t.Fatalf("%s:%d: a finding needs SEVERITY/VERDICT before and after, and a reason", path, n)
			}
			j.findings = append(j.findings, jf)
		case "load":
			stage, part, _ := strings.Cut(rest, " ")
			j.loads[stage] = append(j.loads[stage], part)
		default:
			t.Fatalf("%s:%d: unknown line %q", path, n, kind)
		}
	}
	if j.workspace == "" || j.repo == "" {
		t.Fatalf("%s: names no workspace or repo", path)
	}
	return j
}

// figures are one workspace's counts, before issue 23 and now.
type figures struct {
	findings, falseErrors, falseWarnings, falseNotes, missed, gaps int
}

// Every workspace of the shared corpus and the four template fixtures,
// read in place: icm says exactly what was judged of it. The test fails
// on a finding nobody judged, on a finding judged true that icm no longer
// gives (or gives at another severity), on any finding judged false that
// is an error or a warning, on more false notes in all than a third of the
// workspaces, and on an input that exists and is not loaded. Run with -v
// for the figures, before and now.
func TestCorpusJudged(t *testing.T) {
	wstest.Shared(t) // every judged workspace is read there: one skip, not one per workspace
	files, _ := filepath.Glob(filepath.Join("testdata", "judged", "*.txt"))
	if len(files) == 0 {
		t.Fatal("no judged workspaces")
	}
	var before, after []figures
	names := []string{}
	falseNotes := 0
	for _, file := range files {
		j := readJudged(t, file)
		names = append(names, j.name)
		var b, a figures
		t.Run(j.name, func(t *testing.T) {
			b, a = judgedWorkspace(t, j)
		})
		before, after = append(before, b), append(after, a)
		falseNotes += a.falseNotes
	}
	if max := len(files) / 3; falseNotes > max {
		t.Errorf("%d false notes in all; at most %d (a third of %d workspaces)", falseNotes, max, len(files))
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-58s %s\n", "workspace", "findings  false errors  false warnings  false notes  missed  probe gaps  (before -> now)")
	var tb, ta figures
	for i, n := range names {
		b, a := before[i], after[i]
		fmt.Fprintf(&sb, "%-58s %3d -> %-3d %3d -> %-3d %3d -> %-3d %3d -> %-3d %3d -> %-3d %3d -> %d\n", n,
			b.findings, a.findings, b.falseErrors, a.falseErrors, b.falseWarnings, a.falseWarnings, b.falseNotes, a.falseNotes, b.missed, a.missed, b.gaps, a.gaps)
		tb = addFigures(tb, b)
		ta = addFigures(ta, a)
	}
	fmt.Fprintf(&sb, "%-58s %3d -> %-3d %3d -> %-3d %3d -> %-3d %3d -> %-3d %3d -> %-3d %3d -> %d\n", fmt.Sprintf("total (%d workspaces)", len(names)),
		tb.findings, ta.findings, tb.falseErrors, ta.falseErrors, tb.falseWarnings, ta.falseWarnings, tb.falseNotes, ta.falseNotes, tb.missed, ta.missed, tb.gaps, ta.gaps)
	t.Log("\n" + sb.String())
}

func addFigures(x, y figures) figures {
	return figures{x.findings + y.findings, x.falseErrors + y.falseErrors, x.falseWarnings + y.falseWarnings, x.falseNotes + y.falseNotes, x.missed + y.missed, x.gaps + y.gaps}
}

func judgedWorkspace(t *testing.T, j judgedFile) (before, after figures) {
	dir := wstest.Shared(t, strings.Split(j.workspace, "/")...)
	repo := wstest.Shared(t, strings.Split(j.repo, "/")...)
	rep, _ := runCheckJSON(t, dir, "--repo", repo)
	got := map[string]string{}
	var order []string
	for _, f := range rep.Findings {
		k := fmt.Sprintf("%s:%d %s", relSlash(dir, f.File), f.Line, f.Code)
		if _, ok := got[k]; !ok {
			order = append(order, k)
		}
		got[k] += strings.ToUpper(f.Severity.String()[:1])
	}
	judged := map[string]judgedFinding{}
	for _, jf := range j.findings {
		judged[jf.key] = jf
		before.findings += countSev(jf.beforeSev)
		switch jf.beforeVerdict {
		case "false":
			before.falseErrors += strings.Count(jf.beforeSev, "E")
			before.falseWarnings += strings.Count(jf.beforeSev, "W")
			before.falseNotes += strings.Count(jf.beforeSev, "I")
		case "miss":
			before.missed++
		}
		if jf.verdict == "false" && strings.ContainsAny(jf.afterSev, "EW") {
			t.Errorf("%s is judged false (%s) and must not be an error or a warning", jf.key, jf.reason)
		}
		if jf.verdict == "false" {
			after.falseNotes += strings.Count(jf.afterSev, "I")
		}
		if jf.afterSev == "-" {
			if s, ok := got[jf.key]; ok {
				t.Errorf("%s: icm says it (%s), but it is judged %s to be left unsaid: %s", jf.key, s, jf.verdict, jf.reason)
			}
			continue
		}
		if got[jf.key] != jf.afterSev {
			if jf.verdict == "true" {
				after.missed++
			}
			t.Errorf("%s: icm gives %q, judged %s at %s: %s", jf.key, got[jf.key], jf.verdict, jf.afterSev, jf.reason)
		}
	}
	before.gaps = j.gapsBefore
	for _, k := range order {
		after.findings += len(got[k])
		if _, ok := judged[k]; !ok {
			t.Errorf("%s (%s): a finding nobody judged; judge it in testdata/judged/%s.txt", k, got[k], j.name)
		}
	}
	after.gaps = judgedLoads(t, j, dir, repo)
	return before, after
}

func countSev(s string) int {
	if s == "-" {
		return 0
	}
	return len(s)
}

// judgedLoads checks that each stage loads the inputs judged to exist,
// and returns how many it does not.
func judgedLoads(t *testing.T, j judgedFile, dir, repo string) int {
	gaps := 0
	stages := make([]string, 0, len(j.loads))
	for st := range j.loads {
		stages = append(stages, st)
	}
	sort.Strings(stages)
	for _, st := range stages {
		out, errOut, code := runICM(t, "probe", st, "-w", dir, "--json", "--repo", repo)
		if code > 1 || out == "" {
			t.Errorf("probe %s: exit %d: %s", st, code, errOut)
			gaps += len(j.loads[st])
			continue
		}
		var ctx assemble.Context
		if err := json.Unmarshal([]byte(out), &ctx); err != nil {
			t.Fatal(err)
		}
		loaded := map[string]bool{}
		for _, p := range ctx.Parts {
			if !p.Missing && p.Skipped == "" {
				loaded[fmt.Sprintf("%d %s", p.Layer, p.Label)] = true
			}
		}
		for _, want := range j.loads[st] {
			if !loaded[want] {
				gaps++
				t.Errorf("probe %s: the input %s exists and is not loaded (as layer and label %q)", st, want, want)
			}
		}
	}
	return gaps
}
