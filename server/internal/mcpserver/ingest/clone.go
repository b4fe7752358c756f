package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fetch"
	"github.com/icm-tool/icm/server/internal/human"
)

// Cloner fetches a git repository shallowly with the git program. Every
// connection git makes goes through Proxy, whose dialer applies the
// address policy at connect time (no loopback, private or link-local
// address unless allowed), so a URL from a model cannot reach inside.
type Cloner struct {
	// Git is the git program ("git" on PATH when empty).
	Git string
	// Proxy carries git's connections; nil refuses every clone.
	Proxy *fetch.Proxy
	// Timeout bounds a clone (2 minutes when zero).
	Timeout time.Duration
}

// Clone clones rawURL (http or https only) at depth 1 into a new temporary
// folder; cleanup removes it.
func (c *Cloner) Clone(ctx context.Context, rawURL string) (dir string, cleanup func(), err error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "", nil, fmt.Errorf("%q: only http(s) repository URLs without credentials can be cloned (ssh, git:, file: and local paths given as URLs are refused)", rawURL)
	}
	if c.Proxy == nil {
		return "", nil, errors.New("cloning is not available in this server")
	}
	if err := c.Proxy.Blocked(u.Hostname()); err != nil {
		return "", nil, err
	}
	git := c.Git
	if git == "" {
		git = "git"
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	tmp, err := os.MkdirTemp("", "icm-ingest-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dst := tmp + "/repo"
	// icm's own clone of the URL the model gave, every connection of it
	// through the guarded proxy.
	cmd := act.Command(ctx, act.Own("ingest's clone through the guarded proxy"), act.Action{Kind: act.Self, Argv: []string{git,
		"-c", "http.proxy=http://" + c.Proxy.Addr(),
		"-c", "protocol.allow=never", "-c", "protocol.https.allow=always", "-c", "protocol.http.allow=always",
		"-c", "core.symlinks=false", "-c", "credential.helper=",
		"clone", "--depth", "1", "--single-branch", "--no-tags", "--quiet", "--", u.String(), dst}})
	// No prompts, no user or system configuration, no proxy bypass.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_ASKPASS=/bin/false", "NO_PROXY=", "no_proxy=", "LANG=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limited{buf: &stderr, max: 8 << 10}
	if err := cmd.Run(); err != nil {
		cleanup()
		if ctx.Err() != nil {
			return "", nil, fmt.Errorf("cloning %s took longer than %s and was stopped", rawURL, human.Duration(timeout))
		}
		return "", nil, fmt.Errorf("git could not clone %s: %s", rawURL, strings.TrimSpace(stderr.String()))
	}
	return dst, cleanup, nil
}

type limited struct {
	buf *bytes.Buffer
	max int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
