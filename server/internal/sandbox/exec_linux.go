package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/icm-tool/icm/server/internal/act"
)

// execMain launches one step: it applies the limits, forbids gaining
// privileges, becomes the step's unprivileged user and replaces itself with
// the step's program. Everything happens on one locked thread, the one
// that calls execve, so the raw set*id calls cover the new program.
func execMain() int {
	runtime.LockOSThread()
	var c execConfig
	if len(os.Args) < 3 || json.Unmarshal([]byte(os.Args[2]), &c) != nil {
		fmt.Fprintln(os.Stderr, "sandbox: bad launcher arguments")
		return 126
	}
	st := c.Step
	if err := applyLimits(st.Limits); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		return 126
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: unable to set no_new_privs: %v\n", err)
		return 126
	}
	if err := dropTo(c.UID, c.GID); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		return 126
	}
	dir := WorkDir
	if st.Dir != "" {
		dir = filepath.Join(WorkDir, filepath.FromSlash(st.Dir))
	}
	if err := syscall.Chdir(dir); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: unable to enter %s: %v\n", dir, err)
		return 126
	}
	err := act.Exec(own(), act.Action{Kind: act.Self, Argv: st.Args, Dir: dir}, st.Env)
	fmt.Fprintf(os.Stderr, "sandbox: unable to run %s: %v\n", st.Args[0], err)
	return 127
}

func applyLimits(l Limits) error {
	cpu := uint64((l.CPU + 999_999_999) / 1_000_000_000)
	set := []struct {
		name     string
		res      int
		cur, max uint64
	}{
		{"CPU", unix.RLIMIT_CPU, cpu, cpu + 1},
		{"DATA", unix.RLIMIT_DATA, uint64(l.Memory), uint64(l.Memory)},
		// Shared mappings escape RLIMIT_DATA; the address space cap is the
		// backstop, with room for runtimes that reserve address space up
		// front (a Go program reserves over 1 GiB it never touches).
		{"AS", unix.RLIMIT_AS, uint64(l.Memory) + 3<<29, uint64(l.Memory) + 3<<29},
		{"FSIZE", unix.RLIMIT_FSIZE, uint64(l.FileSize), uint64(l.FileSize)},
		{"NPROC", unix.RLIMIT_NPROC, uint64(l.Processes), uint64(l.Processes)},
		{"NOFILE", unix.RLIMIT_NOFILE, uint64(l.OpenFiles), uint64(l.OpenFiles)},
		{"CORE", unix.RLIMIT_CORE, 0, 0},
	}
	for _, s := range set {
		if err := unix.Setrlimit(s.res, &unix.Rlimit{Cur: s.cur, Max: s.max}); err != nil {
			return fmt.Errorf("unable to set RLIMIT_%s: %w", s.name, err)
		}
	}
	return nil
}

// dropTo switches this thread to uid/gid with no supplementary groups.
// The raw calls change only the calling thread, which is the one that
// execs next.
func dropTo(uid, gid int) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETGROUPS, 0, 0, 0); e != 0 {
		return fmt.Errorf("unable to clear groups: %v", e)
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(gid)); e != 0 {
		return fmt.Errorf("unable to switch group: %v", e)
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
		return fmt.Errorf("unable to switch user: %v", e)
	}
	return nil
}
