package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// installed is a ModelCheck for a server that has these models, or for
// one that does not answer (nil).
func installed(models ...string) ModelCheck {
	return func(m string) (string, bool) {
		if models == nil {
			return "whether the model server has " + m + " cannot be checked: it does not answer", false
		}
		for _, have := range models {
			if have == m {
				return "", false
			}
		}
		return "the model server has no model " + m, true
	}
}

// approvedPipe is pipe with 01-a run under config.toml's model and
// approved, and the config then rewritten to text.
func approvedPipe(t *testing.T, text string) (string, *workspace.Workspace) {
	t.Helper()
	dir := wstest.Write(t, pipe+"-- config.toml --\n[model]\nname = \"qwen3.5:9b\"\n")
	ws, _ := workspace.Open(dir, nil)
	fakeRun(t, ws, "01-a", "v1")
	approve(t, ws, "01-a")
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, _ = workspace.Open(dir, nil)
	return dir, ws
}

func stageA(t *testing.T, ws *workspace.Workspace, models ModelCheck) *StageState {
	t.Helper()
	p, err := Pipeline(ws, contracts(t, ws), PipelineOptions{Models: models})
	if err != nil {
		t.Fatal(err)
	}
	return p.Stages[0]
}

// TestAConfigErrorIsNotStaleness: a config.toml that cannot be read, a
// model name the server lacks and a changed name that cannot be checked
// put the approved stage in "config error", keeping its approval; a
// change to a valid model makes it stale. Before, every one of them made
// the stage stale, as if its approval were lost.
func TestAConfigErrorIsNotStaleness(t *testing.T) {
	cases := []struct {
		name   string
		config string
		models ModelCheck
		want   Status
		reason string
	}{
		{"config.toml cannot be read", "[model\nname = \"qwen3.5:9b\"\n", nil, ConfigError, "config.toml cannot be read"},
		{"a model the server lacks", "[model]\nname = \"qwen3.5:9\"\n", installed("qwen3.5:9b"), ConfigError, "has no model qwen3.5:9"},
		{"a changed name that cannot be checked", "[model]\nname = \"other:7b\"\n", installed(), ConfigError, "cannot be checked"},
		{"a valid model changed", "[model]\nname = \"other:7b\"\n", installed("qwen3.5:9b", "other:7b"), Stale, "changed since the last run"},
		{"nothing changed, server down", "[model]\nname = \"qwen3.5:9b\"\n", installed(), Approved, "approved"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ws := approvedPipe(t, c.config)
			s := stageA(t, ws, c.models)
			if s.Status != c.want || !strings.Contains(s.Reason, c.reason) {
				t.Fatalf("01-a is %s (%s), want %s (%s)", s.Status, s.Reason, c.want, c.reason)
			}
			if c.want != ConfigError {
				return
			}
			if s.Kept != Approved || s.Approval == nil {
				t.Errorf("kept %q, approval %v: the approval must stand", s.Kept, s.Approval)
			}
			f := FaceOf(s, false, "")
			if f.Label != "config error" || f.Tone != ToneError || !strings.Contains(f.Detail, "its approval is kept") {
				t.Errorf("face %q (%s)", f.Text(), f.Tone)
			}
		})
	}
}

// TestConfigErrorComesBackApproved: fixing config.toml brings the
// approval back as it was, with nothing to approve again.
func TestConfigErrorComesBackApproved(t *testing.T) {
	dir, ws := approvedPipe(t, "[model]\nname = \"qwen3.5:9\"\n")
	if s := stageA(t, ws, installed("qwen3.5:9b")); s.Status != ConfigError {
		t.Fatalf("with the typo 01-a is %s", s.Status)
	}
	p, _ := Pipeline(ws, contracts(t, ws), PipelineOptions{Models: installed("qwen3.5:9b")})
	if p.Next.Action != ActionFix || p.Next.Stage != "01-a" || !strings.Contains(p.Next.Message, "config.toml") {
		t.Errorf("next %+v, want fixing config.toml for 01-a", p.Next)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[model]\nname = \"qwen3.5:9b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, _ = workspace.Open(dir, nil)
	if s := stageA(t, ws, installed("qwen3.5:9b")); s.Status != Approved {
		t.Errorf("after the fix 01-a is %s (%s)", s.Status, s.Reason)
	}
}

// TestAFailureUnderSettingsSinceFixedIsNotShown: a re-run that failed
// under a model name since fixed says nothing about the stage now; one
// under the settings in force still does. Before, the lens said "last
// re-run failed: model ..." after the model was fixed.
func TestAFailureUnderSettingsSinceFixedIsNotShown(t *testing.T) {
	for _, c := range []struct {
		name     string
		settings func(ws *workspace.Workspace) string
		shown    bool
	}{
		{"under a typo since fixed", func(*workspace.Workspace) string { return Settings{Models: []string{"qwen3.5:9"}}.Hash() }, false},
		{"under the settings in force", func(ws *workspace.Workspace) string { return ResolveSettings(ws.Config.Model, nil, "").Hash() }, true},
		{"recorded before icm kept settings", func(*workspace.Workspace) string { return "" }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ws := approvedPipe(t, "[model]\nname = \"qwen3.5:9b\"\n")
			st, _ := ws.Stage("01-a")
			rec, _ := ReadRecord(ws.Disk, st.Dir)
			rec.LastFailure = &Attempt{RunID: "r2", Status: RunFailed, Error: `the server has no model "qwen3.5:9"`, Settings: c.settings(ws)}
			if err := WriteRecord(ws.Disk, st.Dir, rec); err != nil {
				t.Fatal(err)
			}
			s := stageA(t, ws, nil)
			if s.Status != Approved || (s.LastFailure != nil) != c.shown || strings.Contains(s.Face.Detail, "last re-run failed") != c.shown {
				t.Errorf("%s, face %q: want the failure shown %v", s.Status, s.Face.Text(), c.shown)
			}
		})
	}
}
