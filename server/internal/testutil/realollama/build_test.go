package realollama

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// requiredOllama reads the ollama version a go.mod requires.
func requiredOllama(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range f.Require {
		if req.Mod.Path == ollamaModule {
			return req.Mod.Version
		}
	}
	t.Fatalf("%s does not require %s", path, ollamaModule)
	return ""
}

// TestServerModulePinsTheSameOllama: the server the tests build and the
// ollama packages icm links (api, fs/ggml, tokenizer, template) are one
// version, although they are two modules; and the build uses that one.
func TestServerModulePinsTheSameOllama(t *testing.T) {
	mod, err := serverModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	got, err := pinnedVersion(t.Context(), mod)
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := exec.CommandContext(t.Context(), "go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := strings.TrimSpace(string(gomod))
	if product := requiredOllama(t, root); product != got {
		t.Errorf("%s requires ollama %s, but the server is built from %s", root, product, got)
	}
	if nested := requiredOllama(t, filepath.Join(mod, "go.mod")); nested != got {
		t.Errorf("pinnedVersion = %s, but the server module requires %s", got, nested)
	}
	// The product's module does not carry the server's dependencies.
	why, err := exec.CommandContext(t.Context(), "go", "mod", "why", "-m", "github.com/gin-gonic/gin").CombinedOutput()
	if err != nil {
		t.Fatalf("go mod why: %v\n%s", err, why)
	}
	if !strings.Contains(string(why), "does not need") {
		t.Errorf("icm's module needs gin again:\n%s", why)
	}
}

func TestBuildReusesACachedBinary(t *testing.T) {
	mod, err := serverModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	version, err := pinnedVersion(t.Context(), mod)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	want := filepath.Join(cache, "ollama-"+version, "ollama")
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	// Not a server: if Build compiled instead of reusing, the test would
	// take minutes and the file would change.
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Build(t.Context(), BuildOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != want || got.Version != version {
		t.Errorf("Build() = %+v, want %s at %s", got, version, want)
	}
	if data, _ := os.ReadFile(want); string(data) != "#!/bin/sh\n" {
		t.Error("Build replaced the cached binary")
	}
}
