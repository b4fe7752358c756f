package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/usersettings"
)

// The reader's summarize and extract use the workspace's model servers
// (a pool, an OpenAI-compatible server), not only OLLAMA_HOST, once the
// workspace is trusted; untrusted, only OLLAMA_HOST's.
func TestReaderClientFollowsWorkspaceConfig(t *testing.T) {
	dir := t.TempDir()
	cfgDir := trusttest.ConfigDir(t)
	getenv := func(k string) string {
		return map[string]string{"KEY": "secret", usersettings.ConfigDirEnv: cfgDir}[k]
	}
	trusted := true
	check := func(cfg, host, want string) {
		t.Helper()
		if cfg != "" {
			os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644)
			if trusted {
				trusttest.Grant(t, dir)
			}
		} else {
			os.Remove(filepath.Join(dir, "config.toml"))
		}
		var warned []string
		c, err := readerClient(dir, "m", host, Options{Getenv: getenv, Warn: func(w string) { warned = append(warned, w) }})
		if err != nil {
			t.Fatal(err)
		}
		if untrustedConfig := !trusted && cfg != "" && host == ""; untrustedConfig != (len(warned) == 1) {
			t.Errorf("config %q, host %q, trusted %v: warnings %q", cfg, host, trusted, warned)
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
			t.Errorf("config %q, host %q: client %T, want %s", cfg, host, c, want)
		}
	}
	pool := "[model]\nname = \"m\"\n[[model.servers]]\nurl = \"http://127.0.0.1:1\"\nslots = 2\n[[model.servers]]\nurl = \"http://127.0.0.1:2\"\nslots = 2\n"
	check(pool, "", "pool")
	check("[model]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:3/v1\"\napi_key_env = \"KEY\"\ncontext_length = 8192\n", "", "openai")
	check(pool, "http://127.0.0.1:4", "ollama")
	check("", "", "ollama")
	trusted = false
	if _, err := (trust.Store{Dir: filepath.Join(cfgDir, "trusted")}).Revoke(dir); err != nil {
		t.Fatal(err)
	}
	check(pool, "", "ollama")
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
	c, err := readerClient(dir, "m", "", Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*llm.Ollama); !ok {
		t.Errorf("client %T: the config.toml outside was followed", c)
	}
}
