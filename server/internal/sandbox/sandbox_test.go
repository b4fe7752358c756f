package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/sandbox"
	"github.com/icm-tool/icm/server/internal/testutil/need"
)

const python = "/usr/bin/python3"

func needSandbox(t *testing.T) {
	t.Helper()
	need.Check(t, "the code sandbox", sandbox.Available())
	if _, err := os.Stat(python); err != nil {
		need.Missing(t, "python3", fmt.Sprintf("%v; install the Debian package python3 (.ci/run does)", err))
	}
}

// runPy runs a Python snippet in the sandbox with env and limits.
func runPy(t *testing.T, code string, env []string, lim sandbox.Limits) *sandbox.Result {
	t.Helper()
	r := &sandbox.Runner{}
	res, err := r.Run(context.Background(), sandbox.Spec{
		Files: map[string][]byte{"snippet.py": []byte(code)},
		Steps: []sandbox.Step{{Name: "run", Args: []string{python, "-I", "snippet.py"}, Env: append([]string{"PATH=/usr/bin:/bin"}, env...), Limits: lim}},
	})
	if err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	assertNoLeftovers(t, res.UID)
	return res
}

// runHost runs the same snippet as an ordinary child process: the control
// that shows the snippet really does what the sandbox must stop.
func runHost(t *testing.T, code string, env []string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "snippet.py")
	if err := os.WriteFile(p, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", p)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild may hold the output pipe open: do not wait for it.
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // the snippet exited; what it left running is the point
	}
	return out.String(), err
}

// assertNoLeftovers fails when any process of the run's user survives it.
func assertNoLeftovers(t *testing.T, uid int) {
	t.Helper()
	if pids := processesOf(uid); len(pids) > 0 {
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("processes of the sandbox user %d outlived the run: %v", uid, pids)
	}
}

func processesOf(uid int) []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", d.Name(), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && f[1] == strconv.Itoa(uid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// acceptor is a server on 127.0.0.1 that accepts connections and closes
// them at once, telling the test about each in the order accepted.
type acceptor struct {
	addr string
	// conns receives the client address of each connection accepted.
	conns chan string
}

func listener(t *testing.T) *acceptor {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &acceptor{addr: ln.Addr().String(), conns: make(chan string, 64)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a.conns <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return a
}

// next waits for the next connection the server accepts. A client's
// connect returns once the kernel has completed the handshake, which can
// be well before the server's Accept on a loaded machine, so the test
// waits for the accept instead of reading a count when the client is done.
func (a *acceptor) next(t *testing.T) string {
	t.Helper()
	select {
	case from := <-a.conns:
		return from
	case <-time.After(10 * time.Second):
		t.Fatalf("the server on %s accepted no connection within 10s", a.addr)
		return ""
	}
}

// since returns how many connections were accepted since the last one the
// test waited for. It connects once more itself and waits for that
// connection: the listener accepts in the order connections were made, so
// every earlier one has been accepted by then.
func (a *acceptor) since(t *testing.T) int {
	t.Helper()
	c, err := net.Dial("tcp", a.addr)
	if err != nil {
		t.Fatal(err)
	}
	mine := c.LocalAddr().String()
	c.Close()
	n := 0
	for a.next(t) != mine {
		n++
	}
	return n
}

func TestNoNetwork(t *testing.T) {
	needSandbox(t)
	srv := listener(t)
	host, port, _ := net.SplitHostPort(srv.addr)
	code := fmt.Sprintf(`import socket, sys
s = socket.socket()
s.settimeout(3)
try:
    s.connect((%q, %s))
    print("CONNECTED")
except OSError as e:
    print("FAILED", e)
`, host, port)
	out, err := runHost(t, code, nil)
	if err != nil || !strings.Contains(out, "CONNECTED") {
		t.Fatalf("control: the snippet does not reach the server outside the sandbox (%v): %s", err, out)
	}
	srv.next(t) // the control's connection
	res := runPy(t, code, nil, sandbox.Limits{})
	st := res.Step("run")
	if !strings.Contains(st.Stdout, "FAILED") || strings.Contains(st.Stdout, "CONNECTED") {
		t.Errorf("in the sandbox the connection did not fail: %+v", st)
	}
	if n := srv.since(t); n != 0 {
		t.Errorf("the server on %s accepted %d connections from the sandbox; none was expected", srv.addr, n)
	}
}

// packageIndex is a fake package index and module proxy that counts hits.
func packageIndex(t *testing.T) (string, *atomic.Int64) {
	hits := &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, hits
}

func TestNoPackageInstalls(t *testing.T) {
	needSandbox(t)
	index, hits := packageIndex(t)
	pip := fmt.Sprintf(`import os, subprocess, sys
r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-cache-dir", "--retries", "0", "--timeout", "3",
                    "--break-system-packages", "--target", "pip-target", "--no-index" if False else "--isolated",
                    "--index-url", %q, "tiny-left-pad"], capture_output=True, text=True, cwd=os.environ.get("WORK", "."))
print("pip exit", r.returncode)
print(r.stdout[-500:], r.stderr[-500:])
`, index+"/simple/")
	if out, err := runHost(t, pip, []string{"WORK=" + t.TempDir()}); err != nil || hits.Load() == 0 {
		t.Fatalf("control: pip outside the sandbox never asked the index (%v): %s", err, out)
	}
	before := hits.Load()
	res := runPy(t, pip, nil, sandbox.Limits{Timeout: 30 * time.Second, Processes: 64})
	if st := res.Step("run"); !strings.Contains(st.Stdout, "pip exit") || strings.Contains(st.Stdout, "pip exit 0") {
		t.Errorf("pip in the sandbox: %+v", st)
	}
	if hits.Load() != before {
		t.Errorf("pip in the sandbox reached the package index %d times", hits.Load()-before)
	}

	goBin := need.Program(t, "go")
	goBin, _ = filepath.EvalSymlinks(goBin)
	goroot := filepath.Dir(filepath.Dir(goBin))
	r := &sandbox.Runner{}
	res, err := r.Run(context.Background(), sandbox.Spec{
		Files: map[string][]byte{"go.mod": []byte("module snippet\n\ngo 1.22\n")},
		Steps: []sandbox.Step{{Name: "get", Args: []string{goBin, "get", "example.com/left/pad@v1.0.0"},
			Env:    []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "GOROOT=" + goroot, "GOPATH=/tmp/gopath", "GOCACHE=/tmp/gocache", "GOPROXY=" + index, "GOSUMDB=off", "GOTOOLCHAIN=local", "GOTELEMETRY=off"},
			Limits: sandbox.Limits{Timeout: 60 * time.Second, Processes: 256, Memory: 2 << 30}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	assertNoLeftovers(t, res.UID)
	if st := res.Step("get"); st.OK() {
		t.Errorf("go get succeeded in the sandbox: %+v", st)
	}
	if hits.Load() != before {
		t.Errorf("go get in the sandbox reached the module proxy %d times", hits.Load()-before)
	}
}

func TestSecretsStayOutside(t *testing.T) {
	needSandbox(t)
	t.Setenv("ICM_TEST_SECRET", "hunter2-secret")
	code := `import os, glob
print("env", os.environ.get("ICM_TEST_SECRET"))
for p in glob.glob("/proc/[0-9]*/environ"):
    try:
        print(p, open(p, "rb").read())
    except OSError:
        pass
`
	if out, err := runHost(t, code, nil); err != nil || !strings.Contains(out, "hunter2-secret") {
		t.Fatalf("control: the snippet does not see the secret outside the sandbox (%v): %s", err, out)
	}
	res := runPy(t, code, []string{"LANG=C.UTF-8"}, sandbox.Limits{})
	st := res.Step("run")
	if !st.OK() || strings.Contains(st.Stdout+st.Stderr, "hunter2") {
		t.Errorf("the secret reached the sandbox: %+v", st)
	}
}

func TestMemoryLimit(t *testing.T) {
	needSandbox(t)
	// Private anonymous memory, as malloc gets it for a large block; only
	// one page is touched, so the control outside the sandbox is cheap.
	code := "import mmap\nm = mmap.mmap(-1, 2 << 30, mmap.MAP_PRIVATE)\nm[-1] = 1\nprint('allocated', len(m))\n"
	if out, err := runHost(t, code, nil); err != nil || !strings.Contains(out, "allocated") {
		t.Fatalf("control: 2 GiB could not be allocated outside the sandbox (%v): %s", err, out)
	}
	for _, code := range []string{code, "b = bytearray(2 << 30)\nprint('allocated', len(b))\n"} {
		res := runPy(t, code, nil, sandbox.Limits{Memory: 256 << 20})
		st := res.Step("run")
		if st.OK() || strings.Contains(st.Stdout, "allocated") || !strings.Contains(st.Stderr, "Error") {
			t.Errorf("2 GiB were allocated under a 256 MiB limit: %+v", st)
		}
	}
}

func TestSharedMappingsAreBounded(t *testing.T) {
	needSandbox(t)
	// Shared anonymous memory escapes RLIMIT_DATA; the address-space cap stops it.
	code := "import mmap\nm = mmap.mmap(-1, 4 << 30)\nprint('mapped')\n"
	res := runPy(t, code, nil, sandbox.Limits{Memory: 256 << 20})
	if st := res.Step("run"); st.OK() || strings.Contains(st.Stdout, "mapped") {
		t.Errorf("a 4 GiB shared mapping was allowed: %+v", st)
	}
}

func TestFileSizeLimit(t *testing.T) {
	needSandbox(t)
	code := "with open('big', 'wb') as f:\n    f.write(b'x' * (8 << 20))\nprint('written')\n"
	res := runPy(t, code, nil, sandbox.Limits{FileSize: 1 << 20})
	if st := res.Step("run"); st.OK() || strings.Contains(st.Stdout, "written") {
		t.Errorf("an 8 MiB file was written under a 1 MiB limit: %+v", st)
	}
}

func TestBusyLoopIsStopped(t *testing.T) {
	needSandbox(t)
	for _, tc := range []struct {
		name string
		code string
		lim  sandbox.Limits
	}{
		// CPU time runs out first: SIGXCPU from RLIMIT_CPU.
		{"cpu", "while True:\n    pass\n", sandbox.Limits{Timeout: 30 * time.Second, CPU: time.Second}},
		// A sleeper uses no CPU: the wall clock stops it.
		{"wall clock", "import time\ntime.sleep(3600)\n", sandbox.Limits{Timeout: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runPy(t, tc.code, nil, tc.lim)
			st := res.Step("run")
			if st.OK() || (!st.TimedOut && st.Signal == "") {
				t.Errorf("the loop was not stopped: %+v", st)
			}
			if tc.name == "cpu" && st.Signal != "SIGXCPU" && st.Signal != "SIGKILL" {
				t.Errorf("the CPU limit did not stop it: %+v", st)
			}
			if tc.name == "wall clock" && !st.TimedOut {
				t.Errorf("the wall-clock limit did not stop it: %+v", st)
			}
		})
	}
}

func TestForkBomb(t *testing.T) {
	needSandbox(t)
	// First a counted version: how many children can it start?
	count := `import os, time
n = 0
for i in range(200):
    try:
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        n += 1
    except OSError:
        break
print("children", n)
`
	out, err := runHost(t, count, nil)
	if err != nil || !strings.Contains(out, "children 200") {
		t.Fatalf("control: 200 children could not be started outside the sandbox (%v): %s", err, out)
	}
	res := runPy(t, count, nil, sandbox.Limits{Processes: 16, Timeout: 20 * time.Second})
	st := res.Step("run")
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(st.Stdout), "children %d", &n); err != nil || n >= 16 {
		t.Errorf("the sandbox let the snippet start %d children under a limit of 16: %+v", n, st)
	}

	// Then the real thing: it must end, and leave nothing behind.
	bomb := "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
	res = runPy(t, bomb, nil, sandbox.Limits{Processes: 16, Timeout: 3 * time.Second})
	if st := res.Step("run"); st.OK() {
		t.Errorf("the fork bomb ended well: %+v", st)
	}
	// The machine still starts processes.
	if err := exec.Command("true").Run(); err != nil {
		t.Errorf("after the fork bomb the host cannot start a process: %v", err)
	}
}

func TestSetsidGrandchildDies(t *testing.T) {
	needSandbox(t)
	code := `import subprocess
p = subprocess.Popen(["/usr/bin/setsid", "/usr/bin/sleep", "300"])
print("grandchild", p.pid, flush=True)
`
	// Control: outside the sandbox the grandchild outlives the group kill.
	out, err := runHost(t, code, nil)
	var pid int
	if _, e := fmt.Sscanf(out, "grandchild %d", &pid); e != nil || err != nil {
		t.Fatalf("control: %v %v: %s", err, e, out)
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("control: the setsid grandchild did not survive outside the sandbox")
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)

	res := runPy(t, code, nil, sandbox.Limits{Timeout: 20 * time.Second})
	if st := res.Step("run"); !st.OK() || !strings.Contains(st.Stdout, "grandchild") {
		t.Errorf("run: %+v", st)
	}
	// runPy already failed the test if any process of the run survived.
}

func TestOutputIsCapped(t *testing.T) {
	needSandbox(t)
	code := "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(100):\n    sys.stdout.write(chunk)\nprint('done')\n"
	out, err := runHost(t, code, nil)
	if err != nil || len(out) < 100<<20 {
		t.Fatalf("control: the snippet printed %d bytes outside the sandbox (%v)", len(out), err)
	}
	res := runPy(t, code, nil, sandbox.Limits{Output: 64 << 10})
	st := res.Step("run")
	if !st.OutputCapped || st.OK() {
		t.Errorf("printing 100 MB was not stopped: capped=%v exit=%d", st.OutputCapped, st.ExitCode)
	}
	if n := len(st.Stdout) + len(st.Stderr); n > 64<<10 {
		t.Errorf("kept %d bytes of output under a 64 KiB cap", n)
	}
	if strings.Contains(st.Stdout, "done") {
		t.Error("the snippet ran to its end despite the cap")
	}
}

func TestWorkFolderIsFreshAndPrivate(t *testing.T) {
	needSandbox(t)
	marker := filepath.Join(os.TempDir(), "icm-sandbox-marker-"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(marker, []byte("host"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(marker)
	code := fmt.Sprintf(`import os
print("sees host tmp:", os.path.exists(%q))
open("left-behind", "w").write("x")
print("cwd:", os.getcwd(), sorted(os.listdir(".")))
try:
    open("/etc/icm-sandbox-escape", "w").write("x")
    print("wrote /etc")
except OSError as e:
    print("etc refused")
`, marker)
	for i := 0; i < 2; i++ {
		res := runPy(t, code, nil, sandbox.Limits{})
		st := res.Step("run")
		if !st.OK() || !strings.Contains(st.Stdout, "sees host tmp: False") || !strings.Contains(st.Stdout, "['left-behind', 'snippet.py']") || !strings.Contains(st.Stdout, "etc refused") {
			t.Errorf("run %d: %+v", i+1, st)
		}
	}
	if _, err := os.Stat("/etc/icm-sandbox-escape"); err == nil {
		os.Remove("/etc/icm-sandbox-escape")
		t.Error("the snippet wrote into the host's /etc")
	}
}

func TestStepsShareTheWorkFolderAndStopAtAFailure(t *testing.T) {
	needSandbox(t)
	r := &sandbox.Runner{}
	res, err := r.Run(context.Background(), sandbox.Spec{
		Files: map[string][]byte{"a.py": []byte("open('out.txt', 'w').write('from a')\n"), "b.py": []byte("print(open('out.txt').read()); raise SystemExit(3)\n")},
		Steps: []sandbox.Step{
			{Name: "a", Args: []string{python, "a.py"}},
			{Name: "b", Args: []string{python, "b.py"}},
			{Name: "c", Args: []string{python, "-c", "print('never')"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if a, b, c := res.Step("a"), res.Step("b"), res.Step("c"); !a.OK() || b.ExitCode != 3 || strings.TrimSpace(b.Stdout) != "from a" || c.Ran {
		t.Errorf("steps: %+v", res.Steps)
	}
}

func TestSpecValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec sandbox.Spec
	}{
		{"no steps", sandbox.Spec{}},
		{"relative program", sandbox.Spec{Steps: []sandbox.Step{{Name: "x", Args: []string{"python3"}}}}},
		{"escaping file", sandbox.Spec{Files: map[string][]byte{"../x": nil}, Steps: []sandbox.Step{{Name: "x", Args: []string{"/bin/true"}}}}},
		{"bind outside", sandbox.Spec{Binds: []sandbox.Bind{{Host: "/etc", Target: "/etc"}}, Steps: []sandbox.Step{{Name: "x", Args: []string{"/bin/true"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			need.Check(t, "the code sandbox", sandbox.Available())
			r := &sandbox.Runner{}
			if _, err := r.Run(context.Background(), tc.spec); err == nil {
				t.Error("accepted")
			}
		})
	}
}
