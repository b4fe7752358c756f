package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/tools/txtar"

	"github.com/icm-tool/icm/server/internal/assemble"
)

// The corpus holds one small workspace per notation people write in
// ICM-template contracts (testdata/corpus/*.txtar), each with what icm
// must make of it. An archive's files are the workspace, except:
//
//   - want/check: every finding `icm check --json` reports, in order, one
//     per line as `PATH:LINE SEVERITY CODE`, optionally followed by
//     ` ~ TEXT` (the message holds TEXT) or ` !~ TEXT` (it does not);
//   - want/probe STAGE: the parts `icm probe STAGE --json` assembles, one
//     per line as `ROLE LAYER LABEL`, followed by ` (NOTE)` when the part
//     has a note, and optional lines `+ TEXT` / `- TEXT` that the
//     assembled text must or must not hold (\r and \t are escapes);
//   - want/status: `STAGE STATUS` per line, as `icm status --json` says;
//   - want/stages: the stage folders `icm check --json` lists;
//   - want/outputs STAGE: the stage's outputs as `icm check --json` parses
//     them, one path per line, and `other: WHAT` for a non-file row;
//   - want/bases STAGE: `LABEL BASE` for each part of `icm probe STAGE`
//     whose path was found under a base other than the stage folder.
//
// A file named NAME.crlf is written as NAME with CRLF line ends, NAME.b64
// as NAME decoded from base64 (for binary inputs), and NAME.symlink as a
// symbolic link NAME to the path it holds. When the archive has a file
// want/workspace, the workspace is the folder it names (the archive then
// holds what lies around it: a repository, folders above it). When it has
// a file want/repo, every command is given --repo with the folder it
// names (the repository root a person names outside git).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus archives: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir, wants := writeCorpus(t, ar)
			root := dir
			if sub, ok := wants["workspace"]; ok {
				dir = filepath.Join(dir, filepath.FromSlash(strings.TrimSpace(sub)))
				delete(wants, "workspace")
			}
			var extra []string
			if repo, ok := wants["repo"]; ok {
				extra = []string{"--repo", filepath.Join(root, filepath.FromSlash(strings.TrimSpace(repo)))}
				delete(wants, "repo")
			}
			if len(wants) == 0 {
				t.Fatal("the archive says nothing about what icm must do (no want/ file)")
			}
			for _, name := range slices.Sorted(maps.Keys(wants)) {
				want := wants[name]
				kind, arg, _ := strings.Cut(name, " ")
				switch kind {
				case "check":
					corpusCheck(t, dir, want, extra...)
				case "probe":
					corpusProbe(t, dir, arg, want, extra...)
				case "status":
					corpusStatus(t, dir, want, extra...)
				case "stages":
					corpusStages(t, dir, want, extra...)
				case "outputs":
					corpusOutputs(t, dir, arg, want, extra...)
				case "bases":
					corpusBases(t, dir, arg, want, extra...)
				default:
					t.Fatalf("unknown expectation want/%s", name)
				}
			}
		})
	}
}

// writeCorpus writes an archive's workspace into a temporary folder and
// returns it with the archive's expectations, keyed by what follows want/.
func writeCorpus(t *testing.T, ar *txtar.Archive) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	wants := map[string]string{}
	for _, f := range ar.Files {
		if rest, ok := strings.CutPrefix(f.Name, "want/"); ok {
			wants[rest] = string(f.Data)
			continue
		}
		name, data := f.Name, f.Data
		switch {
		case strings.HasSuffix(name, ".crlf"):
			name = strings.TrimSuffix(name, ".crlf")
			data = []byte(strings.ReplaceAll(string(data), "\n", "\r\n"))
		case strings.HasSuffix(name, ".b64"):
			name = strings.TrimSuffix(name, ".b64")
			dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			data = dec
		}
		if link, ok := strings.CutSuffix(name, ".symlink"); ok {
			p := filepath.Join(dir, filepath.FromSlash(link))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(strings.TrimSpace(string(data)), p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real, wants
}

// runCheckJSON runs `icm check --json` on dir and returns the report and
// the JSON as printed.
func runCheckJSON(t *testing.T, dir string, extra ...string) (checkReport, string) {
	t.Helper()
	out, errOut, code := runICM(t, append([]string{"check", "-w", dir, "--json"}, extra...)...)
	if code > 1 {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	return rep, out
}

func corpusCheck(t *testing.T, dir, want string, extra ...string) {
	t.Helper()
	rep, out := runCheckJSON(t, dir, extra...)
	if v, err := jsonschema.UnmarshalJSON(strings.NewReader(out)); err != nil {
		t.Fatal(err)
	} else if err := contractSchema(t).Validate(v); err != nil {
		t.Errorf("check --json does not match contracts-schema: %v", err)
	}
	got, lines := rep.Findings, nonEmptyLines(want)
	var gotLines []string
	for _, f := range got {
		gotLines = append(gotLines, fmt.Sprintf("%s:%d %s %s", relSlash(dir, f.File), f.Line, f.Severity, f.Code))
	}
	if len(lines) != len(got) {
		t.Errorf("check: %d findings, want %d\ngot:\n%s\nwant:\n%s\nmessages:\n%s", len(got), len(lines),
			strings.Join(gotLines, "\n"), strings.Join(lines, "\n"), messages(got))
		return
	}
	for i, l := range lines {
		head, must, mustNot := splitExpect(l)
		if gotLines[i] != head {
			t.Errorf("check finding %d = %s, want %s (%s)", i+1, gotLines[i], head, got[i].Message)
			continue
		}
		if must != "" && !strings.Contains(got[i].Message, must) {
			t.Errorf("check finding %d (%s): message %q lacks %q", i+1, head, got[i].Message, must)
		}
		if mustNot != "" && strings.Contains(got[i].Message, mustNot) {
			t.Errorf("check finding %d (%s): message %q holds %q", i+1, head, got[i].Message, mustNot)
		}
	}
}

// splitExpect splits `HEAD ~ TEXT` or `HEAD !~ TEXT`.
func splitExpect(l string) (head, must, mustNot string) {
	if h, rest, ok := strings.Cut(l, " !~ "); ok {
		return h, "", rest
	}
	if h, rest, ok := strings.Cut(l, " ~ "); ok {
		return h, rest, ""
	}
	return l, "", ""
}

func messages(fs []located) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %d: %s\n", f.Line, f.Message)
	}
	return b.String()
}

func corpusProbe(t *testing.T, dir, stage, want string, extra ...string) {
	t.Helper()
	out, errOut, code := runICM(t, append([]string{"probe", stage, "-w", dir, "--json"}, extra...)...)
	if code > 1 || out == "" {
		t.Fatalf("probe %s: exit %d: %s", stage, code, errOut)
	}
	var ctx assemble.Context
	if err := json.Unmarshal([]byte(out), &ctx); err != nil {
		t.Fatalf("probe --json: %v\n%s", err, out)
	}
	var got []string
	for _, p := range ctx.Parts {
		l := fmt.Sprintf("%s %s %s", p.Role, p.LayerName(), p.Label)
		if n := p.Note(); n != "" {
			l += " (" + n + ")"
		}
		got = append(got, l)
	}
	var parts []string
	text := ctx.System + ctx.User
	for _, l := range nonEmptyLines(want) {
		switch {
		case strings.HasPrefix(l, "+ "):
			if s := unescape(l[2:]); !strings.Contains(text, s) {
				t.Errorf("probe %s: the assembled text lacks %q", stage, s)
			}
		case strings.HasPrefix(l, "- "):
			if s := unescape(l[2:]); strings.Contains(text, s) {
				t.Errorf("probe %s: the assembled text holds %q", stage, s)
			}
		default:
			parts = append(parts, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(parts, "\n") {
		t.Errorf("probe %s parts:\n%s\nwant:\n%s", stage, strings.Join(got, "\n"), strings.Join(parts, "\n"))
	}
}

func corpusStatus(t *testing.T, dir, want string, extra ...string) {
	t.Helper()
	out, errOut, code := runICM(t, append([]string{"status", "-w", dir, "--json"}, extra...)...)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	var st struct {
		Stages []struct{ Stage, Status, Reason string }
		Next   struct{ Message string }
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range st.Stages {
		got = append(got, s.Stage+" "+s.Status)
	}
	var lines []string
	for _, l := range nonEmptyLines(want) {
		if m, ok := strings.CutPrefix(l, "next ~ "); ok {
			if !strings.Contains(st.Next.Message, m) {
				t.Errorf("status: next is %q, want it to hold %q", st.Next.Message, m)
			}
			continue
		}
		lines = append(lines, l)
	}
	if strings.Join(got, "\n") != strings.Join(lines, "\n") {
		t.Errorf("status:\n%s\nwant:\n%s\n(%s)", strings.Join(got, "\n"), strings.Join(lines, "\n"), out)
	}
}

func corpusStages(t *testing.T, dir, want string, extra ...string) {
	t.Helper()
	rep, _ := runCheckJSON(t, dir, extra...)
	var got []string
	for _, s := range rep.Stages {
		if s.Contract == nil {
			got = append(got, s.Name+" (no contract)")
			continue
		}
		got = append(got, filepath.ToSlash(filepath.Dir(relSlash(dir, s.Contract.File))))
	}
	if strings.Join(got, "\n") != strings.Join(nonEmptyLines(want), "\n") {
		t.Errorf("stages:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

func corpusOutputs(t *testing.T, dir, stage, want string, extra ...string) {
	t.Helper()
	rep, _ := runCheckJSON(t, dir, extra...)
	var got []string
	for _, s := range rep.Stages {
		if s.Name != stage || s.Contract == nil {
			continue
		}
		for _, o := range s.Contract.Outputs {
			got = append(got, o.Path)
		}
		for _, o := range s.Contract.OtherOutputs {
			got = append(got, "other: "+o.What)
		}
	}
	if strings.Join(got, "\n") != strings.Join(nonEmptyLines(want), "\n") {
		t.Errorf("outputs of %s:\n%s\nwant:\n%s", stage, strings.Join(got, "\n"), want)
	}
}

func relSlash(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(p)
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, " \t"); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func unescape(s string) string {
	return strings.NewReplacer(`\r`, "\r", `\t`, "\t", `\n`, "\n").Replace(s)
}

func corpusBases(t *testing.T, dir, stage, want string, extra ...string) {
	t.Helper()
	out, errOut, code := runICM(t, append([]string{"probe", stage, "-w", dir, "--json"}, extra...)...)
	if code > 1 || out == "" {
		t.Fatalf("probe %s: exit %d: %s", stage, code, errOut)
	}
	var ctx assemble.Context
	if err := json.Unmarshal([]byte(out), &ctx); err != nil {
		t.Fatalf("probe --json: %v\n%s", err, out)
	}
	var got []string
	for _, p := range ctx.Parts {
		if p.Base != "" && p.Base != "stage folder" {
			got = append(got, p.Label+" "+p.Base)
		}
	}
	if strings.Join(got, "\n") != strings.Join(nonEmptyLines(want), "\n") {
		t.Errorf("bases of %s:\n%s\nwant:\n%s", stage, strings.Join(got, "\n"), want)
	}
}
