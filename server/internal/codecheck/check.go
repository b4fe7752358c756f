package codecheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/sandbox"
)

// Result is what checking one block found.
type Result struct {
	Block Block `json:"-"`
	// Index and Lang repeat the block's, for reports.
	Index int    `json:"index"`
	Lang  string `json:"lang"`
	Line  int    `json:"line"`
	// Parsed: the block parsed; Ran: it was run (and passed when OK).
	Parsed bool `json:"parsed"`
	Ran    bool `json:"ran"`
	OK     bool `json:"ok"`
	// Skipped says why a block was not run ("no-run", "a Go fragment", ...).
	Skipped string `json:"skipped,omitempty"`
	// Error is the first error only; ErrorLine its line in the document (0 when unknown).
	Error     string `json:"error,omitempty"`
	ErrorLine int    `json:"error_line,omitempty"`
	// Output is the tail of what the program printed.
	Output   string        `json:"output,omitempty"`
	Duration time.Duration `json:"duration"`
}

// Checker parses and runs code blocks. Zero fields take defaults.
type Checker struct {
	// Sandbox runs the code; nil means a sandbox.Runner on this executable.
	Sandbox *sandbox.Runner
	// Limits bound each run (sandbox.DefaultLimits when zero).
	Limits sandbox.Limits
	// BuildLimits bound compiling a Go block (generous: the toolchain is trusted).
	BuildLimits sandbox.Limits
	// Python and GoTool are the interpreters; "" means found on the system PATH.
	Python, GoTool string
	// GoCache is the persistent Go build cache folder; "" means the user
	// cache folder's icm/sandbox-gocache.
	GoCache string
}

// BuildUID owns the persistent Go build cache; builds run as this user,
// snippets as a fresh one each run, which cannot read or change the cache.
const BuildUID = 2_999_999

var (
	pySyntax   = regexp.MustCompile(`^ICM-PARSE line (\d+): (.*)$`)
	pyFrame    = regexp.MustCompile(`File "(?:/tmp/)?snippet\.py", line (\d+)`)
	goPosition = regexp.MustCompile(`(?m)^(?:\./|/tmp/src/)?main\.go:(\d+)(?::\d+)?: (.*)$`)
	goPanicPos = regexp.MustCompile(`/tmp/src/main\.go:(\d+)`)
)

// parseScript prints the first syntax error with its line, or nothing.
const parseScript = `import ast, sys
src = open("snippet.py", encoding="utf-8").read()
try:
    ast.parse(src, "snippet.py")
except SyntaxError as e:
    print("ICM-PARSE line %d: %s: %s" % (e.lineno or 0, type(e).__name__, e.msg))
    sys.exit(1)
`

// CheckBlock parses b and, when run is set and the block may run, runs it.
func (c *Checker) CheckBlock(ctx context.Context, b Block, run bool) Result {
	r := Result{Block: b, Index: b.Index, Lang: b.Lang, Line: b.Line}
	start := time.Now()
	defer func() { r.Duration = time.Since(start) }()
	switch b.Lang {
	case Python:
		c.python(ctx, b, run, &r)
	case Go:
		c.golang(ctx, b, run, &r)
	default:
		r.OK, r.Skipped = true, "not Python or Go"
	}
	return r
}

func (c *Checker) runner() *sandbox.Runner {
	if c.Sandbox != nil {
		return c.Sandbox
	}
	return &sandbox.Runner{}
}

func (c *Checker) python(ctx context.Context, b Block, run bool, r *Result) {
	py, err := systemTool(c.Python, "python3")
	if err != nil {
		r.Error = err.Error()
		return
	}
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1"}
	steps := []sandbox.Step{{Name: "parse", Args: []string{py, "-I", "-c", parseScript}, Env: env, Limits: sandbox.Limits{Timeout: 20 * time.Second}}}
	runIt := run && !b.NoRun
	if runIt {
		steps = append(steps, sandbox.Step{Name: "run", Args: []string{py, "-I", "-B", "snippet.py"}, Env: env, Limits: c.Limits})
	}
	var res *sandbox.Result
	if !runIt && sandbox.Available() != nil {
		// Parsing executes nothing, so without the sandbox (not root)
		// `code-blocks parse` still works, as a plain bounded process.
		res, err = parseOutside(ctx, py, b.Code, env)
	} else {
		res, err = c.runner().Run(ctx, sandbox.Spec{Files: map[string][]byte{"snippet.py": []byte(b.Code)}, Steps: steps})
	}
	if err != nil {
		r.Error = err.Error()
		return
	}
	p := res.Step("parse")
	if !p.OK() {
		if m := pySyntax.FindStringSubmatch(strings.TrimSpace(p.Stdout)); m != nil {
			n, _ := strconv.Atoi(m[1])
			r.Error, r.ErrorLine = m[2], docLine(b, n)
		} else {
			r.Error = "the parser failed: " + firstError(p)
		}
		return
	}
	r.Parsed = true
	if !runIt {
		r.OK = true
		if b.NoRun {
			r.Skipped = "marked no-run"
		}
		return
	}
	c.judgeRun(b, res.Step("run"), r, pyFrame)
}

// parseOutside runs the parse step as an ordinary child process in a
// temporary folder, with a time limit that kills its process group.
func parseOutside(ctx context.Context, py, code string, env []string) (*sandbox.Result, error) {
	dir, err := os.MkdirTemp("", "icm-parse-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "snippet.py"), []byte(code), 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	// icm's own parser, on a snippet it wrote: the code is only parsed.
	cmd := act.Command(ctx, act.Own("the code-blocks check's parser"), act.Action{Kind: act.Self, Argv: []string{py, "-I", "-c", parseScript}, Dir: dir})
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	st := sandbox.StepResult{Name: "parse", Ran: true, Stdout: tail(string(out), 4000)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		st.TimedOut = true
	case errors.As(err, &exit):
		st.ExitCode, st.Stderr = exit.ExitCode(), tail(string(exit.Stderr), 4000)
	case err != nil:
		return nil, err
	}
	return &sandbox.Result{Steps: []sandbox.StepResult{st}}, nil
}

// judgeRun turns a run step into the block's verdict and first error.
func (c *Checker) judgeRun(b Block, st *sandbox.StepResult, r *Result, frame *regexp.Regexp) {
	r.Ran = true
	r.Output = tail(st.Stdout+st.Stderr, 2000)
	if st.OK() {
		r.OK = true
		return
	}
	lim := c.Limits
	if lim.Timeout <= 0 {
		lim = sandbox.DefaultLimits
	}
	switch {
	case st.Err != "":
		r.Error = st.Err
	case st.TimedOut:
		r.Error = fmt.Sprintf("did not finish within %s and was stopped", human.Duration(lim.Timeout))
	case st.OutputCapped:
		r.Error = "printed more output than allowed and was stopped"
	case st.Signal == "SIGXCPU":
		r.Error = "used up its CPU time and was stopped"
	default:
		r.Error = firstError(st)
	}
	if ms := frame.FindAllStringSubmatch(st.Stderr, -1); len(ms) > 0 {
		n, _ := strconv.Atoi(ms[len(ms)-1][1])
		r.ErrorLine = docLine(b, n)
	}
}

// firstError picks the one line that says what went wrong: the exception
// line closing a Python traceback, a panic, or the first line on stderr.
func firstError(st *sandbox.StepResult) string {
	lines := strings.Split(strings.TrimSpace(st.Stderr), "\n")
	if strings.HasPrefix(lines[0], "Traceback") {
		for i := len(lines) - 1; i >= 0; i-- {
			if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(lines[i], " ") {
				return l
			}
		}
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			if st.Signal != "" {
				return l + " (killed by " + st.Signal + ")"
			}
			return l
		}
	}
	if st.Signal != "" {
		return "killed by " + st.Signal
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode)
}

func docLine(b Block, n int) int {
	if n <= 0 {
		return b.Line
	}
	return b.CodeLine + n - 1
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// systemTool finds a program the sandbox's unprivileged user can run: an
// explicit path, or name on the system PATH (not a user's, whose home the
// sandbox user may not enter).
func systemTool(explicit, name string) (string, error) {
	p := explicit
	if p == "" {
		for _, dir := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() {
				p = filepath.Join(dir, name)
				break
			}
		}
		if p == "" && name == "go" {
			if lp, err := exec.LookPath("go"); err == nil {
				p = lp
			}
		}
	}
	if p == "" {
		return "", fault.Failed(fmt.Sprintf("%s is not installed in a system folder (/usr/local/bin, /usr/bin, /bin), so code blocks cannot be checked; install it (apt-get install python3 / golang)", name),
			"install "+name+" in a system folder, or check code blocks by parsing them only", nil)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("unable to resolve %s: %w", p, err)
	}
	if err := othersCanRun(real); err != nil {
		return "", err
	}
	return real, nil
}

// othersCanRun checks that every folder on the way to p can be entered,
// and p run, by a user who is neither its owner nor in its group.
func othersCanRun(p string) error {
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fault.Failed(fmt.Sprintf("the sandbox user cannot reach %s: folder %s is closed to others (mode %v); install it in a system folder", p, dir, fi.Mode().Perm()),
				"install it in a system folder", nil)
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o001 == 0 {
		return fault.Failed(p+" cannot be run by other users", "install it in a system folder, where every user may run it", nil)
	}
	return nil
}
