package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// pullEnv runs icm in dir with OLLAMA_HOST pointing at host.
func pullEnv(dir, host string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	env := &Env{
		Stdin:  strings.NewReader(""),
		Stdout: &out,
		Stderr: &errOut,
		Getenv: func(k string) string {
			if k == "OLLAMA_HOST" {
				return host
			}
			return ""
		},
		Getwd: func() (string, error) { return dir, nil },
	}
	return env, &out, &errOut
}

func TestPullCommand(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{
		Models: []ollamatest.Model{{Name: "tiny"}},
		Pullable: []ollamatest.Model{
			{Name: "qwen3:0.6b", Size: 2_000_000},
			{Name: "from-config:1b", Size: 5000},
			{Name: "offline:1b", PullError: "pull model manifest: dial tcp: lookup registry.ollama.ai: no such host"},
		},
	})
	dead := deadURL(t)
	withConfig := t.TempDir()
	if err := os.WriteFile(filepath.Join(withConfig, "config.toml"), []byte("[model]\nname = \"from-config:1b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		dir     string
		args    []string
		ok      bool
		pulled  string
		stderr  []string
		wantErr []string
	}{
		{"model argument", t.TempDir(), []string{"pull", "qwen3:0.6b"}, true, "qwen3:0.6b",
			[]string{"pulling manifest", "0% (0 B of 2.0 MB)", "50% (1.0 MB of 2.0 MB)", "100% (2.0 MB of 2.0 MB)", "verifying sha256 digest", "success"}, nil},
		{"model from config.toml", withConfig, []string{"pull"}, true, "from-config:1b",
			[]string{"from " + filepath.Join(withConfig, "config.toml"), "success"}, nil},
		{"model flag", t.TempDir(), []string{"pull", "--model", "qwen3:0.6b"}, true, "qwen3:0.6b", []string{"success"}, nil},
		{"no such model", t.TempDir(), []string{"pull", "nosuch:7b"}, false, "",
			[]string{"pulling manifest"}, []string{`the model registry has no model named "nosuch:7b"`, "hint: ", "ollama.com/library", "or use another model:"}},
		{"registry unreachable", t.TempDir(), []string{"pull", "offline:1b"}, false, "",
			nil, []string{"no such host", "hint: ", "internet access"}},
		// The same fault, hint and fixes as `icm run` against a server that
		// is not there.
		{"server not running", t.TempDir(), []string{"pull", "qwen3:0.6b"}, false, "",
			nil, []string{"icm: ", "hint: start the model server, or point icm at one that runs", "no model server at " + dead, "start the server:", "ollama serve", "or use another server:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host := srv.URL()
			if c.name == "server not running" {
				host = dead
			}
			env, out, errOut := pullEnv(c.dir, host)
			code := exitCode(env, Run(context.Background(), env, c.args))
			if c.ok != (code == 0) {
				t.Fatalf("exit status %d, want success %v; stderr:\n%s", code, c.ok, errOut)
			}
			if !c.ok && code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			if c.pulled != "" && out.String() != "pulled "+c.pulled+"\n" {
				t.Errorf("stdout %q, want it to name %s", out, c.pulled)
			}
			for _, s := range append(c.stderr, c.wantErr...) {
				if !strings.Contains(errOut.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
			if strings.Contains(errOut.String(), "\r") {
				t.Errorf("stderr is not a terminal: no carriage returns wanted:\n%q", errOut)
			}
		})
	}
}

// TestPullRefusesAConfigLinkedOut: outside a workspace, icm pull takes
// the model from the folder's config.toml, read through a Root of the
// folder: one that links to a file outside is refused, naming the link,
// and the model it names is not pulled.
func TestPullRefusesAConfigLinkedOut(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Pullable: []ollamatest.Model{{Name: "from-outside:1b", Size: 5000}}})
	outside := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(outside, []byte("[model]\nname = \"from-outside:1b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "config.toml")); err != nil {
		t.Fatal(err)
	}
	env, out, errOut := pullEnv(dir, srv.URL())
	err := Run(context.Background(), env, []string{"pull"})
	if err == nil || strings.Contains(out.String(), "pulled") {
		t.Fatalf("pull through a config.toml linked out: err %v, stdout %q", err, out)
	}
	if msg := err.Error() + errOut.String(); !strings.Contains(msg, "symbolic link") || !strings.Contains(msg, outside) {
		t.Errorf("the error does not name the link: %v\n%s", err, errOut)
	}
}

func TestPullViewOnATerminalDrawsBars(t *testing.T) {
	var buf bytes.Buffer
	v := newPullView(&buf, true)
	for _, p := range []report.PullProgress{
		{Status: "pulling manifest"},
		{Status: "pulling 0123456789ab", Digest: "sha256:0123456789abcdef", Total: 1000, Completed: 0},
		{Status: "pulling 0123456789ab", Digest: "sha256:0123456789abcdef", Total: 1000, Completed: 1000},
		{Status: "success"},
	} {
		v.update(p)
	}
	v.finish()
	s := buf.String()
	for _, want := range []string{"pulling manifest\n", "pulling 0123456789ab", "100%", "success\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%q", want, s)
		}
	}
}

// deadURL is an address on which nothing listens.
func deadURL(t *testing.T) string {
	return closedport.URL(t)
}
