package codecheck

import (
	"context"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/sandbox"
)

// golang parses a Go block with go/parser; a complete program (package
// main with func main) is built and run in the sandbox, another complete
// package is built, and a fragment (no package clause) is parsed only.
func (c *Checker) golang(ctx context.Context, b Block, run bool, r *Result) {
	kind, offset, err := parseGo(b.Code)
	if err != nil {
		r.Error, r.ErrorLine = goParseError(b, err, offset)
		return
	}
	r.Parsed = true
	switch {
	case b.NoRun:
		r.OK, r.Skipped = true, "marked no-run"
		return
	case !run:
		r.OK = true
		return
	case kind == goFragment:
		r.OK, r.Skipped = true, "a fragment without a package clause is parsed, not built"
		return
	}
	if err := sandbox.Available(); err != nil {
		r.Error = err.Error()
		return
	}
	goBin, err := systemTool(c.GoTool, "go")
	if err != nil {
		r.Error = err.Error()
		return
	}
	cache, err := c.goCache()
	if err != nil {
		r.Error = err.Error()
		return
	}
	goroot := filepath.Dir(filepath.Dir(goBin))
	buildEnv := []string{"PATH=/usr/bin:/bin:" + filepath.Join(goroot, "bin"), "HOME=/tmp", "GOROOT=" + goroot,
		"GOCACHE=/tmp/.gocache", "GOPATH=/tmp/.gopath", "GOPROXY=off", "GOFLAGS=-mod=mod", "GOSUMDB=off", "GOWORK=off",
		"GOTOOLCHAIN=local", "GOTELEMETRY=off", "CGO_ENABLED=0"}
	bl := c.BuildLimits
	if bl.Timeout <= 0 {
		bl = sandbox.Limits{Timeout: 3 * time.Minute, Memory: 3 << 30, Processes: 512, FileSize: 256 << 20, OpenFiles: 1024, Output: 64 << 10}
	}
	// The module sits in a sub-folder: the go command ignores a go.mod
	// directly in the system's temporary folder.
	build := sandbox.Step{Name: "build", Dir: "src", Args: []string{goBin, "build", "-o", "/tmp/snippet", "."}, Env: buildEnv, Limits: bl, UID: BuildUID, GID: BuildUID}
	if kind == goLibrary {
		build.Args = []string{goBin, "build", "."}
	}
	steps := []sandbox.Step{build}
	if kind == goProgram {
		steps = append(steps, sandbox.Step{Name: "run", Args: []string{"/tmp/snippet"}, Env: []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "GOMAXPROCS=2"}, Limits: c.Limits})
	}
	res, err := c.runner().Run(ctx, sandbox.Spec{
		Files: map[string][]byte{"src/main.go": []byte(b.Code), "src/go.mod": []byte("module snippet\n\ngo 1.21\n")},
		Steps: steps,
		Binds: []sandbox.Bind{{Host: cache, Target: "/tmp/.gocache", Writable: true}},
		Disk:  256 << 20,
	})
	if err != nil {
		r.Error = err.Error()
		return
	}
	st := res.Step("build")
	if !st.OK() {
		r.Error = firstError(st)
		if m := goPosition.FindStringSubmatch(st.Stderr); m != nil {
			n, _ := strconv.Atoi(m[1]) // the pattern matched digits
			r.Error, r.ErrorLine = m[2], docLine(b, n)
		}
		return
	}
	if kind == goLibrary {
		r.OK, r.Skipped = true, "a package without func main is built, not run"
		return
	}
	c.judgeRun(b, res.Step("run"), r, goPanicPos)
}

// Kinds of Go blocks.
const (
	goProgram = iota
	goLibrary
	goFragment
)

// parseGo parses code as a file, or else as declarations or statements
// wrapped in a file; offset is how many lines the wrapping added.
func parseGo(code string) (kind, offset int, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", code, parser.AllErrors)
	if err == nil {
		if f.Name.Name == "main" && f.Scope.Lookup("main") != nil {
			return goProgram, 0, nil
		}
		return goLibrary, 0, nil
	}
	if strings.Contains(firstLine(err), "expected 'package'") {
		if _, derr := parser.ParseFile(token.NewFileSet(), "main.go", "package snippet\n"+code, parser.AllErrors); derr == nil {
			return goFragment, 1, nil
		}
		_, serr := parser.ParseFile(token.NewFileSet(), "main.go", "package snippet\nfunc _() {\n"+code+"\n}\n", parser.AllErrors)
		if serr == nil {
			return goFragment, 2, nil
		}
		return goFragment, 2, serr
	}
	return goProgram, 0, err
}

func goParseError(b Block, err error, offset int) (string, int) {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		e := list[0]
		return e.Msg, docLine(b, e.Pos.Line-offset)
	}
	return firstLine(err), b.Line
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// goCache returns the persistent build cache, created owned by BuildUID
// and closed to everyone else.
func (c *Checker) goCache() (string, error) {
	dir := c.GoCache
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder for Go builds: %w", err)
		}
		dir = filepath.Join(base, "icm", "sandbox-gocache")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("unable to create the Go build cache %s: %w", dir, err)
	}
	if err := os.Chown(dir, BuildUID, BuildUID); err != nil {
		return "", fmt.Errorf("unable to hand the Go build cache %s to the build user: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}
