package lsp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// proc is `icm lsp` running as a process, its stdout recorded.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *recorder
	done   chan struct{}
	err    error
}

// recorder keeps everything read through it.
type recorder struct {
	r   io.Reader
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.mu.Lock()
	r.buf.Write(p[:n])
	r.mu.Unlock()
	return n, err
}

func (r *recorder) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.buf.Bytes()...)
}

type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

func startProc(t *testing.T) *proc {
	t.Helper()
	cmd := exec.Command(icmBin, "lsp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, stdin: stdin, stdout: &recorder{r: out}, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
	return p
}

func (p *proc) exitCode(t *testing.T) int {
	t.Helper()
	<-p.done
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

// onlyFrames checks that b is nothing but Content-Length frames of JSON.
func onlyFrames(t *testing.T, b []byte) int {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(b))
	n := 0
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return n
		}
		if !strings.HasPrefix(line, "Content-Length: ") || !strings.HasSuffix(line, "\r\n") {
			t.Fatalf("stdout holds something other than a frame at frame %d: %q", n+1, line)
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length: ")))
		if err != nil {
			t.Fatal(err)
		}
		if blank, _ := br.ReadString('\n'); blank != "\r\n" {
			t.Fatalf("frame %d: no blank line after the header", n+1)
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(br, body); err != nil || !json.Valid(body) {
			t.Fatalf("frame %d: body %q is not JSON (%v)", n+1, body, err)
		}
		n++
	}
}

func TestStdioProcess(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	p := startProc(t)
	ed := lsptest.Connect(t, pipeRWC{p.stdout, p.stdin}, lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": "127.0.0.1:1"}})
	ed.Initialize()
	ed.Open(scope)
	ed.Edit(scope, "input.md", "gone.md")
	ed.AwaitDiagnostics(scope, "the seeded error", lsptest.HasCode("input-missing"))
	if h, err := ed.Hover(scope, ed.Pos(scope, "# Stage", 2)); err != nil || !strings.Contains(h, "tokens") {
		t.Errorf("hover = %q, %v", h, err)
	}
	if err := ed.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	ed.Notify("exit", nil)
	if code := p.exitCode(t); code != 0 {
		t.Errorf("exit after shutdown: code %d, want 0", code)
	}
	if n := onlyFrames(t, p.stdout.bytes()); n < 3 {
		t.Errorf("only %d frames on stdout", n)
	}
}

func TestStdioProcessExitCodes(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	t.Run("exit without shutdown", func(t *testing.T) {
		p := startProc(t)
		ed := lsptest.Connect(t, pipeRWC{p.stdout, p.stdin}, lsptest.Config{Root: dir})
		ed.Initialize()
		ed.Notify("exit", nil)
		if code := p.exitCode(t); code != 1 {
			t.Errorf("code %d, want 1", code)
		}
	})
	t.Run("stdin closed", func(t *testing.T) {
		p := startProc(t)
		p.stdin.Close()
		if code := p.exitCode(t); code != 1 {
			t.Errorf("code %d, want 1", code)
		}
	})
}
