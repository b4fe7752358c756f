package realollama

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/icm-tool/icm/server/internal/testutil/devcache"
)

// ollamaModule is the Go module whose main package is the Ollama server.
const ollamaModule = "github.com/ollama/ollama"

// serverModuleDir is the nested module the server is built from
// (server/internal/testutil/ollamaserver): a go.mod of its own, so the
// server's dependencies stay out of icm's.
func serverModuleDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("unable to locate the ollamaserver module beside this package")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "ollamaserver")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("the module the Ollama server is built from is missing (run this from the icm checkout): %w", err)
	}
	return dir, nil
}

// miniaudioHeader stands in for llama.cpp's vendored miniaudio.h, which
// the module download leaves out (see the header's own comment).
//
//go:embed testdata/cheaders/miniaudio/miniaudio.h
var miniaudioHeader []byte

// ErrHeadersMissing means the C++ headers the server build needs from
// Debian (nlohmann-json3-dev, libstb-dev) are not installed. It is the one
// case in which tests may skip instead of fail, and only off CI.
var ErrHeadersMissing = errors.New("the Debian packages nlohmann-json3-dev and libstb-dev are not installed " +
	"(apt-get install nlohmann-json3-dev libstb-dev; .ci/run does this on CI)")

// BuildOptions configure Build.
type BuildOptions struct {
	// CacheDir holds the built server; empty means devcache.Dir().
	CacheDir string
	// Log receives the compiler's output as it runs; nil discards it
	// (a failed build's output is in the error either way).
	Log io.Writer
}

// Binary is a built Ollama server.
type Binary struct {
	// Path is the executable.
	Path string
	// Version is the ollama module version it was built from, e.g. v0.17.4.
	Version string
}

// Build returns the Ollama server built from the ollama module version that
// the ollamaserver module's go.mod pins, building it into
// <cache>/ollama-<version>/ollama the first time. It must run from the icm
// checkout (as go test does). A file lock keeps two processes from
// building at once, and the binary appears under its final name only when
// it is complete.
func Build(ctx context.Context, opts BuildOptions) (Binary, error) {
	cache := opts.CacheDir
	if cache == "" {
		var err error
		if cache, err = devcache.Dir(); err != nil {
			return Binary{}, err
		}
	}
	mod, err := serverModuleDir()
	if err != nil {
		return Binary{}, err
	}
	version, err := pinnedVersion(ctx, mod)
	if err != nil {
		return Binary{}, err
	}
	bin := Binary{Path: filepath.Join(cache, "ollama-"+version, "ollama"), Version: version}
	if executable(bin.Path) {
		return bin, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Binary{}, fmt.Errorf("unable to create cache folder %s: %w", cache, err)
	}
	unlock, err := devcache.Lock(ctx, filepath.Join(cache, "ollama-"+version+".lock"))
	if err != nil {
		return Binary{}, err
	}
	defer unlock()
	// Another process may have built it while we waited for the lock.
	if executable(bin.Path) {
		return bin, nil
	}
	if err := checkHeaders(ctx); err != nil {
		return Binary{}, err
	}
	if err := buildInto(ctx, mod, cache, bin, opts.Log); err != nil {
		return Binary{}, err
	}
	return bin, nil
}

// pinnedVersion asks the go command which ollama version the build list
// of the module in dir holds, which is the one `go build` there will use.
func pinnedVersion(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Version}}", ollamaModule)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("unable to find the %s version in %s: %w%s",
			ollamaModule, filepath.Join(dir, "go.mod"), err, stderrOf(err))
	}
	version := strings.TrimSpace(string(out))
	if version == "" {
		return "", fmt.Errorf("unable to find the %s version: go list printed nothing", ollamaModule)
	}
	return version, nil
}

// buildInto compiles the server in the module at mod into a temporary
// folder inside cache, then renames the result into place, so a killed
// build never leaves a half binary.
func buildInto(ctx context.Context, mod, cache string, bin Binary, log io.Writer) error {
	tmp, err := os.MkdirTemp(cache, "ollama-build-*")
	if err != nil {
		return fmt.Errorf("unable to create a build folder in %s: %w", cache, err)
	}
	defer os.RemoveAll(tmp)
	// The include folder's path is part of the cgo flags and so of the Go
	// build cache's keys: it must not change between builds, or every
	// build would compile llama.cpp again.
	include := filepath.Join(cache, "ollama-"+bin.Version+"-include")
	if err := os.MkdirAll(filepath.Join(include, "miniaudio"), 0o755); err != nil {
		return fmt.Errorf("unable to create %s: %w", include, err)
	}
	if err := os.WriteFile(filepath.Join(include, "miniaudio", "miniaudio.h"), miniaudioHeader, 0o644); err != nil {
		return fmt.Errorf("unable to write the miniaudio stand-in header: %w", err)
	}
	out := filepath.Join(tmp, "ollama")
	// Without the version in ldflags the server reports 0.0.0.
	ldflags := "-X " + ollamaModule + "/version.Version=" + strings.TrimPrefix(bin.Version, "v")
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags", ldflags, "-o", out, ollamaModule)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "CGO_CPPFLAGS="+strings.TrimSpace(os.Getenv("CGO_CPPFLAGS")+" -I"+include))
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if log != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&output, log), io.MultiWriter(&output, log)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("unable to build the Ollama server (%s): %w\n%s", strings.Join(cmd.Args, " "), err, tail(output.String(), 4000))
	}
	if err := os.MkdirAll(filepath.Dir(bin.Path), 0o755); err != nil {
		return fmt.Errorf("unable to create %s: %w", filepath.Dir(bin.Path), err)
	}
	if err := os.Rename(out, bin.Path); err != nil {
		return fmt.Errorf("unable to move the built server to %s: %w", bin.Path, err)
	}
	return nil
}

// checkHeaders runs the C++ preprocessor on the two Debian headers the build
// needs, with the flags cgo will use, so a missing package is reported in a
// second instead of after minutes of compiling.
func checkHeaders(ctx context.Context) error {
	cxx, err := exec.CommandContext(ctx, "go", "env", "CXX").Output()
	if err != nil {
		return fmt.Errorf("unable to ask go for the C++ compiler: %w%s", err, stderrOf(err))
	}
	args := strings.Fields(string(cxx))
	if len(args) == 0 {
		return fmt.Errorf("unable to build the Ollama server: go env CXX names no C++ compiler")
	}
	args = append(args, strings.Fields(os.Getenv("CGO_CPPFLAGS"))...)
	args = append(args, "-E", "-x", "c++", "-o", os.DevNull, "-")
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin = strings.NewReader("#include <nlohmann/json.hpp>\n#include \"stb/stb_image.h\"\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", ErrHeadersMissing, firstLine(string(out), err))
	}
	return nil
}

func executable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}

func stderrOf(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(exit.Stderr))
	}
	return ""
}

func firstLine(s string, fallback error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return fallback.Error()
	}
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// tail returns the last n bytes of s, where a build's errors are.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
