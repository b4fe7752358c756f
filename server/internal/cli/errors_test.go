package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/fault/faulttest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestEveryErrorKindRendersTheSameFixes: one fault value per kind, as the
// core builds it, rendered by the CLI (hint and commands) and by the
// language server (error data with the hint and action ids, and a code,
// as TestErrorDataOfEveryKind pins them in the extension's fixture).
// Both must offer the same fixes; only the CLI may name a command line.
func TestEveryErrorKindRendersTheSameFixes(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(wstest.RepoRoot(t), "extension", "test", "unit", "fixtures", "error-data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var editor map[string]struct {
		Code int64           `json:"code"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &editor); err != nil {
		t.Fatal(err)
	}
	cases := map[fault.Kind]struct {
		code    int64
		cli     []string // lines the CLI prints after the hint, in order
		actions []string // the action ids of the error data, in order
	}{
		fault.KindModelUnreachable: {-32803, []string{"start the server:  ollama serve", "or use another server:  OLLAMA_HOST=URL, or [model] base_url in config.toml"}, []string{"start-server", "set-server"}},
		fault.KindModelMissing:     {-32803, []string{`use the installed model:  --model qwen3:8b, or [model] name = "qwen3:8b" in config.toml`, "pull it:  icm pull qwen3:4b -w /w/course-research"}, []string{"choose-model", "pull-model"}},
		fault.KindWindowExceeded:   {-32803, []string{"see:  /w/course-research/pipeline/01-scope/CONTEXT.md"}, []string{"open-file"}},
		fault.KindTruncated:        {-32803, nil, nil},
		fault.KindIncomplete:       {-32803, nil, nil},
		fault.KindModelFailed:      {-32803, nil, nil},
		fault.KindRunnerStopped:    {-32803, []string{"see:  /w/course-research/config.toml"}, []string{"open-file"}},
		fault.KindVerifyFailed:     {-32803, []string{"see:  /w/course-research/pipeline/01-scope/output/objectives.md:3", "approve it anyway:  icm approve 01-scope --force --note REASON -w /w/course-research"}, []string{"open-file", "approve-anyway"}},
		fault.KindEditedOutput:     {-32803, []string{"approve it as it is:  icm approve 01-scope -w /w/course-research", "see the edit:  icm history --diff 01-scope --written -w /w/course-research", "run it and overwrite:  icm run --stage 01-scope --force -w /w/course-research"}, []string{"approve", "compare-model", "run-anyway"}},
		fault.KindContractInvalid:  {-32803, []string{"see:  /w/course-research/pipeline/01-scope/CONTEXT.md:7", "list every problem:  icm check -w /w/course-research"}, []string{"open-file", "run-check"}},
		fault.KindStale:            {-32803, []string{"run it:  icm run --stage 01-scope -w /w/course-research", "approve it anyway:  icm approve 01-scope --force --note REASON -w /w/course-research"}, []string{"run-stage", "approve-anyway"}},
		fault.KindNotRun:           {-32803, []string{"run it:  icm run --stage 01-scope -w /w/course-research"}, []string{"run-stage"}},
		fault.KindUnapproved:       {-32803, []string{"approve it as it is:  icm approve 01-scope -w /w/course-research"}, []string{"approve"}},
		fault.KindRunFailed:        {-32803, []string{"run it:  icm run --stage 01-scope -w /w/course-research", "approve it anyway:  icm approve 01-scope --force --note REASON -w /w/course-research"}, []string{"run-stage", "approve-anyway"}},
		fault.KindScriptFailed:     {-32803, []string{"see:  /w/course-research/pipeline/05-build/CONTEXT.md", "run it:  icm run --stage 05-build -w /w/course-research"}, []string{"open-file", "run-stage"}},
		fault.KindLocked:           {-32803, nil, nil},
		fault.KindToolFailed:       {-32803, nil, nil},
		fault.KindConfigInvalid:    {-32803, []string{"see:  /w/course-research/config.toml", "or use another model:  --model NAME, or [model] name in config.toml"}, []string{"open-file", "choose-model"}},
		fault.KindUntrusted:        {-32803, []string{"see what it would be allowed, and trust it:  icm trust -w /w/course-research"}, []string{"trust-workspace"}},
		fault.KindNotFound:         {-32602, nil, nil},
		fault.KindInvalidRequest:   {-32602, nil, nil},
		fault.KindUnknownCommand:   {-32601, nil, nil},
		fault.KindCancelled:        {-32800, nil, nil},
		fault.KindFailed:           {-32803, nil, nil},
		fault.KindInternal:         {-32803, nil, nil},
	}
	values := faulttest.Cases()
	env := &Env{Getwd: func() (string, error) { return "/elsewhere", nil }}
	for _, k := range faulttest.Kinds() {
		t.Run(string(k), func(t *testing.T) {
			want, ok := cases[k]
			if !ok {
				t.Fatalf("no expectation for kind %s: add one", k)
			}
			err := values[k]
			var out bytes.Buffer
			printError(env, &out, &flaggedError{err: err, flags: usedFlags{workspace: faulttest.Root}})
			lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
			if lines[0] != "icm: "+err.Msg {
				t.Errorf("first line %q, want the message", lines[0])
			}
			var got []string
			for _, l := range lines[1:] {
				if strings.HasPrefix(l, "hint: ") {
					if l != "hint: "+err.Hint {
						t.Errorf("hint line %q, want %q", l, err.Hint)
					}
					continue
				}
				got = append(got, strings.Join(strings.Fields(strings.Replace(l, ":", ":\x00", 1)), " "))
			}
			if err.Hint != "" && !strings.Contains(out.String(), "hint: "+err.Hint) {
				t.Errorf("the CLI text lacks the hint:\n%s", out.String())
			}
			if len(got) != len(want.cli) {
				t.Fatalf("CLI lines:\n%s\nwant %q", out.String(), want.cli)
			}
			for i := range got {
				if w := strings.Join(strings.Fields(strings.Replace(want.cli[i], ":", ":\x00", 1)), " "); got[i] != w {
					t.Errorf("CLI line %d = %q, want %q", i, got[i], w)
				}
			}

			var data struct {
				Kind, Stage, Hint string
				Actions           []struct{ ID, Title string }
			}
			sample, ok := editor[string(k)]
			if !ok {
				t.Fatalf("the editor's fixture has no sample of %s: run the language server's TestErrorDataOfEveryKind with -update", k)
			}
			raw := sample.Data
			if e := json.Unmarshal(raw, &data); e != nil {
				t.Fatal(e)
			}
			if data.Kind != string(k) || data.Hint != err.Hint || data.Stage != err.Stage {
				t.Errorf("error data %s, want kind %s, the hint and stage %q", raw, k, err.Stage)
			}
			var ids []string
			for _, a := range data.Actions {
				ids = append(ids, a.ID)
				if a.Title == "" {
					t.Errorf("action %s has no title", a.ID)
				}
			}
			if strings.Join(ids, ",") != strings.Join(want.actions, ",") {
				t.Errorf("actions %v, want %v", ids, want.actions)
			}
			if c := sample.Code; c != want.code {
				t.Errorf("code %d, want %d", c, want.code)
			}
			for _, flag := range []string{"--force", "--model", "icm approve", "icm run", "icm check"} {
				if strings.Contains(string(raw), flag) {
					t.Errorf("the editor's error data names %q: %s", flag, raw)
				}
			}
		})
	}
}

// TestEveryActionHasACommand: an action the CLI cannot render would be a
// fix the terminal never offers.
func TestEveryActionHasACommand(t *testing.T) {
	env := &Env{Getwd: func() (string, error) { return "/", nil }}
	for _, id := range faulttest.Actions() {
		a := fault.Action{ID: id, Stage: "01-scope", File: "/w/x.md", Line: 2, Model: "m", URL: "http://h", Command: "ollama serve"}
		if s, ok := suggest(env, a, usedFlags{}); !ok || s.what == "" || s.how == "" {
			t.Errorf("action %s renders as %+v, %v", id, s, ok)
		}
	}
}
