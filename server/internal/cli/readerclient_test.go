package cli

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// The reader's summarize and extract use the workspace's model servers
// (a pool, an OpenAI-compatible server), not only OLLAMA_HOST, once the
// workspace is trusted; untrusted, only OLLAMA_HOST's.
func TestReaderClientFollowsWorkspaceConfig(t *testing.T) {
	dir := t.TempDir()
	cfgDir := trusttest.ConfigDir(t)
	env := &Env{Getenv: func(k string) string {
		return map[string]string{"KEY": "secret", trust.ConfigDirEnv: cfgDir}[k]
	}, Getwd: func() (string, error) { return dir, nil }}
	trusted := true
	check := func(cfg string, f *browserFlags, want string) {
		t.Helper()
		if cfg != "" {
			os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644)
			if trusted {
				trusttest.Grant(t, dir)
			}
		} else {
			os.Remove(filepath.Join(dir, "config.toml"))
		}
		c, err := readerClient(env, f, "m", slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		var got string
		switch c.(type) {
		case *llm.Pool:
			got = "pool"
		case *llm.OpenAI:
			got = "openai"
		case *llm.Ollama:
			got = "ollama"
		}
		if got != want {
			t.Errorf("config %q, flags %+v: client %T, want %s", cfg, f, c, want)
		}
	}
	pool := "[model]\nname = \"m\"\n[[model.servers]]\nurl = \"http://127.0.0.1:1\"\nslots = 2\n[[model.servers]]\nurl = \"http://127.0.0.1:2\"\nslots = 2\n"
	check(pool, &browserFlags{}, "pool")
	check("[model]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:3/v1\"\napi_key_env = \"KEY\"\ncontext_length = 8192\n", &browserFlags{}, "openai")
	check(pool, &browserFlags{ollama: "http://127.0.0.1:4"}, "ollama")
	check("", &browserFlags{}, "ollama")
	trusted = false
	if _, err := (trust.Store{Dir: filepath.Join(cfgDir, "trusted")}).Revoke(dir); err != nil {
		t.Fatal(err)
	}
	check(pool, &browserFlags{}, "ollama")
}

// A config.toml that links out of the folder the reader runs in is not
// read: the servers it names (an OpenAI-compatible one here) are not
// used, and the reader talks to OLLAMA_HOST's Ollama as without one.
func TestReaderClientIgnoresAConfigLinkedOut(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(outside, []byte("[model]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:3/v1\"\ncontext_length = 8192\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "config.toml")); err != nil {
		t.Fatal(err)
	}
	env := &Env{Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }}
	c, err := readerClient(env, &browserFlags{}, "m", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*llm.Ollama); !ok {
		t.Errorf("client %T: the config.toml outside was followed", c)
	}
}
