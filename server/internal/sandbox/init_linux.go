package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/icm-tool/icm/server/internal/act"
)

// initMain is the sandbox's PID 1: it prepares the private mounts, runs
// each step and writes the results to file descriptor 4. When it exits
// the kernel kills whatever is left in its PID namespace.
func initMain() int {
	cfgFile, resFile := os.NewFile(3, "config"), os.NewFile(4, "result")
	var cfg initConfig
	if err := json.NewDecoder(cfgFile).Decode(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox init: unable to read the config: %v\n", err)
		return 2
	}
	cfgFile.Close()
	if err := setUp(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox init: %v\n", err)
		return 2
	}
	res := Result{}
	failed := false
	for _, st := range cfg.Spec.Steps {
		if failed {
			res.Steps = append(res.Steps, StepResult{Name: st.Name})
			continue
		}
		r := runStep(&cfg, st)
		res.Steps = append(res.Steps, r)
		if !r.OK() && !st.Continue {
			failed = true
		}
	}
	if err := json.NewEncoder(resFile).Encode(&res); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox init: unable to write the result: %v\n", err)
		return 2
	}
	return 0
}

// setUp makes the mounts private, puts a fresh tmpfs on /tmp with the
// spec's files, a fresh /proc for the new PID namespace, small tmpfs on
// the other world-writable places, and brings up the namespace's own
// loopback (so local servers inside a snippet work; nothing outside is
// reachable).
func setUp(cfg *initConfig) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("unable to make mounts private: %w", err)
	}
	if err := unix.Mount("tmpfs", WorkDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("size=%d,mode=1777", cfg.Spec.Disk)); err != nil {
		return fmt.Errorf("unable to mount the work folder: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("unable to mount /proc: %w", err)
	}
	for _, p := range []string{"/dev/shm", "/var/tmp", "/run/lock"} {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=1777"); err != nil {
				return fmt.Errorf("unable to mount %s: %w", p, err)
			}
		}
	}
	for name, data := range cfg.Spec.Files {
		dst := filepath.Join(WorkDir, filepath.FromSlash(path.Clean(name)))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		if err := os.Lchown(dst, cfg.UID, cfg.GID); err != nil {
			return err
		}
	}
	for _, b := range cfg.Spec.Binds {
		if err := os.MkdirAll(b.Target, 0o755); err != nil {
			return err
		}
		if err := unix.Mount(b.Host, b.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("unable to bind %s: %w", b.Host, err)
		}
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_NOSUID | unix.MS_NODEV)
		if !b.Writable {
			flags |= unix.MS_RDONLY
		}
		if err := unix.Mount("", b.Target, "", flags, ""); err != nil {
			return fmt.Errorf("unable to remount %s: %w", b.Target, err)
		}
	}
	_ = unix.Sethostname([]byte("sandbox"))
	return loopbackUp()
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("unable to open a socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("unable to read lo: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("unable to bring lo up: %w", err)
	}
	return nil
}

// execConfig is one step as the launcher receives it.
type execConfig struct {
	Step Step `json:"step"`
	UID  int  `json:"uid"`
	GID  int  `json:"gid"`
}

// runStep starts one step through the launcher, collects its output up to
// the cap, and kills everything in the namespace when the step ends, runs
// out of time or prints too much: a grandchild that left the process group
// cannot outlive its step.
func runStep(cfg *initConfig, st Step) StepResult {
	res := StepResult{Name: st.Name, Ran: true}
	uid, gid := cfg.UID, cfg.GID
	if st.UID != 0 {
		uid, gid = st.UID, st.GID
	}
	arg, err := json.Marshal(execConfig{Step: st, UID: uid, GID: gid})
	if err != nil {
		res.Err = err.Error()
		return res
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		res.Err = err.Error()
		return res
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		res.Err = err.Error()
		return res
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	var (
		mu       sync.Mutex
		stdout   bytes.Buffer
		stderr   bytes.Buffer
		written  int64
		capped   bool
		timedOut bool
	)
	killAll := func() { _ = syscall.Kill(-1, syscall.SIGKILL) }
	collect := func(r io.Reader, buf *bytes.Buffer, wg *sync.WaitGroup) {
		defer wg.Done()
		p := make([]byte, 32<<10)
		for {
			n, err := r.Read(p)
			if n > 0 {
				mu.Lock()
				room := st.Limits.Output - written
				if room > 0 {
					buf.Write(p[:min(int64(n), room)])
				}
				written += int64(n)
				over := written > st.Limits.Output && !capped
				if over {
					capped = true
				}
				mu.Unlock()
				if over {
					killAll()
				}
			}
			if err != nil {
				return
			}
		}
	}
	start := time.Now()
	pid, err := act.ForkExec(own(), act.Action{Kind: act.Self, Path: "/proc/self/exe", Argv: []string{"icm-sandbox-exec", execArg, string(arg)}}, &syscall.ProcAttr{
		Dir:   WorkDir,
		Env:   []string{},
		Files: []uintptr{devnull.Fd(), outW.Fd(), errW.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	outW.Close()
	errW.Close()
	devnull.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		res.Err = fmt.Sprintf("unable to start %s: %v", st.Args[0], err)
		return res
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go collect(outR, &stdout, &readers)
	go collect(errR, &stderr, &readers)

	status := make(chan syscall.WaitStatus, 1)
	reaped := make(chan struct{})
	go func() {
		defer close(reaped)
		for {
			var ws syscall.WaitStatus
			p, err := syscall.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil {
				return // ECHILD: nothing is left in the namespace
			}
			if p == pid {
				status <- ws
			}
		}
	}()
	timer := time.AfterFunc(st.Limits.Timeout, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		killAll()
	})
	var ws syscall.WaitStatus
	select {
	case ws = <-status:
	case <-reaped:
		res.Err = "the step's process vanished"
	}
	timer.Stop()
	res.Duration = time.Since(start)
	killAll()
	<-reaped
	readers.Wait()
	outR.Close()
	errR.Close()

	mu.Lock()
	defer mu.Unlock()
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.OutputCapped, res.TimedOut = capped, timedOut
	switch {
	case ws.Exited():
		res.ExitCode = ws.ExitStatus()
	case ws.Signaled():
		res.Signal = unix.SignalName(ws.Signal())
		res.ExitCode = 128 + int(ws.Signal())
	}
	return res
}
