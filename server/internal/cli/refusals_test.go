package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/usersettings"
)

// TestEachRefusalIsAnErrorAndRefuses: docs/refusals.md lists what refuses
// a run, each kind with a fixture (testdata/refusals/*.txtar). On each, the
// stage it names is still refused by `icm run --stage S`, before any model
// call, with the fault kind and words the fixture gives, and `icm check`
// still gives the error it names there ("-" for a refusal that is no
// finding on the contract: trust, an earlier stage's gate). Every fixture
// is listed, and every listed one exists.
func TestEachRefusalIsAnErrorAndRefuses(t *testing.T) {
	listed := refusalFixtures(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "refusals", "*.txtar"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, n := range names {
		if !slices.Contains(listed, n) {
			t.Errorf("testdata/refusals/%s is not listed in docs/refusals.md", n)
		}
	}
	for _, n := range listed {
		if !slices.Contains(names, n) {
			t.Errorf("docs/refusals.md lists testdata/refusals/%s, which does not exist", n)
		}
	}
	for _, n := range names {
		t.Run(strings.TrimSuffix(n, ".txtar"), func(t *testing.T) { refusalFixture(t, filepath.Join("testdata", "refusals", n)) })
	}
}

// refusalFixtures are the fixtures the table of docs/refusals.md names.
func refusalFixtures(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(wstest.RepoRoot(t), "docs", "refusals.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`cli/testdata/refusals/([a-z0-9-]+\.txtar)`).FindAllStringSubmatch(string(data), -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	if len(out) == 0 {
		t.Fatal("docs/refusals.md names no fixture")
	}
	return out
}

func refusalFixture(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "scripted", ContextLength: 40960}}, AllowUnscripted: true})
	srv.Default(ollamatest.Text("written"))
	for i := range ar.Files {
		ar.Files[i].Data = []byte(strings.ReplaceAll(string(ar.Files[i].Data), "MODEL_URL", srv.URL()))
	}
	dir, wants := writeCorpus(t, ar)
	if sub, ok := wants["workspace"]; ok {
		dir = filepath.Join(dir, strings.TrimSpace(sub))
	}
	stage, code, kind, says := strings.TrimSpace(wants["stage"]), strings.TrimSpace(wants["check"]), strings.TrimSpace(wants["run"]), strings.TrimSpace(wants["says"])

	rep, _ := runCheckJSON(t, dir)
	var errs []string
	for _, f := range rep.Findings {
		if f.Severity.String() == "error" && (strings.Contains(filepath.ToSlash(f.File)+"/", "/"+stage+"/") || strings.HasPrefix(f.Code, "config")) {
			errs = append(errs, f.Code)
		}
	}
	switch {
	case code == "-" && len(errs) > 0:
		t.Errorf("icm check gives %v on %s, want no error", errs, stage)
	case code != "-" && !slices.Contains(errs, code):
		t.Errorf("icm check gives %v on %s, want %s", errs, stage, code)
	}

	args := []string{"-w", dir, "run", "--stage", stage, "--model", "scripted"}
	if _, ok := wants["untrusted"]; !ok {
		args = append([]string{"--trust"}, args...)
	}
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getwd: func() (string, error) { return dir, nil },
		Getenv: func(k string) string {
			if k == "OLLAMA_HOST" {
				return srv.URL()
			}
			if k == usersettings.ConfigDirEnv {
				return os.Getenv(k) // the test's config folder, never the person's
			}
			return ""
		}}
	err = Run(context.Background(), env, args)
	if err == nil {
		t.Fatalf("icm run --stage %s was not refused:\n%s%s", stage, out.String(), errOut.String())
	}
	if n := len(srv.ChatRequests()); n > 0 {
		t.Errorf("%d model calls before the refusal", n)
	}
	said := err.Error()
	if f := fault.From(err); f != nil {
		said += " " + f.Hint
	}
	if got := string(fault.KindOf(err)); got != kind {
		t.Errorf("refused as %q (%s), want %q", got, said, kind)
	}
	if !strings.Contains(said, says) {
		t.Errorf("the refusal does not say %q: %s", says, said)
	}
}
