// Package sandbox runs untrusted code (the code blocks of a generated
// article) on Linux without Docker, with limits that really apply.
//
// One Run starts a small init process (this binary again, see Main) in new
// PID, network, mount, IPC and UTS namespaces. The init mounts a fresh,
// size-capped tmpfs on /tmp (the throwaway work folder, holding the files
// of the Spec), a fresh /proc, and small tmpfs on /dev/shm and /var/tmp,
// then runs the Spec's steps one after the other. Each step is started
// through this binary once more, which applies the step's resource limits
// (setrlimit), sets no_new_privs, drops to an unprivileged user and execs
// the program with exactly the environment the step names.
//
// What each protection rests on:
//
//   - No network: the new network namespace has only a loopback device,
//     and it is down; connecting anywhere fails ("network is unreachable").
//   - Time: every step has a wall-clock limit and RLIMIT_CPU; the whole
//     run has a deadline after which the init is killed with SIGKILL, and
//     the kernel then kills every process of its PID namespace, including
//     grandchildren that called setsid to leave the process group.
//   - Processes: RLIMIT_NPROC, which the kernel enforces only for non-root
//     users, so steps run as a per-run user id no other process has; the
//     count is exact for the run, and a fork bomb stops at the limit.
//   - Memory: RLIMIT_DATA (private writable memory: malloc, Go heaps) and,
//     as a backstop for shared mappings, RLIMIT_AS; tmpfs sizes bound what
//     files can hold in memory.
//   - Files: RLIMIT_FSIZE caps one file; the tmpfs caps them all; the host
//     file system is read-only to the step's user except what the init
//     mounts, and nothing written survives the run.
//   - Output: stdout and stderr are read while the step runs; past the cap
//     the step is killed, so a snippet printing gigabytes costs nothing.
//   - Environment: a step gets the variables its Step lists and no others.
//
// Creating namespaces, mounting and switching users need root (or
// CAP_SYS_ADMIN and CAP_SETUID): Available says whether this process can.
// The package is for checking generated code, not a hardened boundary
// against a determined attacker: there is no seccomp filter, and the host
// file system stays readable where its permissions allow others to read.
package sandbox
