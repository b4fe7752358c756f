package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/human"
)

// Runner runs Specs. The zero value runs this very executable as the
// sandbox's init (which must call Main).
type Runner struct {
	// Exe is the binary that serves as init and launcher (it calls Main);
	// "" means os.Executable.
	Exe string
}

// own is the sandbox's permit: what it starts is icm's own (itself as
// init and launcher, and the code a check hands it, fenced in).
func own() act.Permit { return act.Own("the code sandbox") }

// initConfig is what the parent hands the init on file descriptor 3.
type initConfig struct {
	Spec Spec `json:"spec"`
	// UID and GID are the run's fresh unprivileged user.
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// Fresh users come from a range no distribution hands out, so RLIMIT_NPROC
// counts only this run's processes.
const (
	userBase  = 3_000_000
	userRange = 1_000_000
)

// Available reports whether this process can run the sandbox here.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("the code sandbox needs root (it creates namespaces, mounts a private /tmp and switches to an unprivileged user); run icm as root, e.g. in a container, or check code blocks with `code-blocks parse` only")
	}
	return nil
}

// Run runs spec's steps in a fresh sandbox and returns what they did. An
// error means the sandbox itself could not run; a step that fails is a
// Result, not an error.
func (r *Runner) Run(ctx context.Context, spec Spec) (*Result, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if err := spec.validate(); err != nil {
		return nil, err
	}
	if spec.Disk <= 0 {
		spec.Disk = 64 << 20
	}
	var total time.Duration
	var outCap int64
	for i := range spec.Steps {
		spec.Steps[i].Limits = spec.Steps[i].Limits.withDefaults()
		total += spec.Steps[i].Limits.Timeout
		outCap += 2*spec.Steps[i].Limits.Output + 4096
	}
	exe := r.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: unable to find this executable: %w", err)
		}
	}
	uid := userBase + rand.IntN(userRange)
	cfg, err := json.Marshal(initConfig{Spec: spec, UID: uid, GID: uid})
	if err != nil {
		return nil, err
	}
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer cfgR.Close()
	defer cfgW.Close()
	resR, resW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer resR.Close()
	defer resW.Close()

	// The whole run's deadline: every step's limit plus set-up time. Past
	// it the init dies, and with it its whole PID namespace.
	ctx, cancel := context.WithTimeout(ctx, total+10*time.Second)
	defer cancel()
	cmd := act.Command(ctx, own(), act.Action{Kind: act.Self, Argv: []string{exe, initArg}, Dir: "/"})
	cmd.Env = []string{}
	cmd.ExtraFiles = []*os.File{cfgR, resW}
	var diag bytes.Buffer
	cmd.Stdout = &capWriter{buf: &diag, max: 16 << 10}
	cmd.Stderr = cmd.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
		Setpgid:    true,
		Pdeathsig:  syscall.SIGKILL,
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sandbox: unable to start the init (%s): %w", exe, err)
	}
	cfgR.Close()
	resW.Close()
	go func() {
		_, _ = cfgW.Write(cfg)
		cfgW.Close()
	}()
	var res bytes.Buffer
	_, readErr := io.Copy(&res, io.LimitReader(resR, outCap+1<<20))
	waitErr := cmd.Wait()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("sandbox: the run did not finish within %s and was killed", human.Duration(total+10*time.Second))
	}
	if readErr != nil {
		return nil, fmt.Errorf("sandbox: unable to read the result: %w", readErr)
	}
	var out Result
	if err := json.Unmarshal(res.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("sandbox: the init gave no result (%v; exit: %v): %s", err, waitErr, tailOf(diag.String(), 2000))
	}
	out.Duration, out.UID = elapsed, uid
	return &out, nil
}

func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
