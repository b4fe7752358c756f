//go:build unix && !linux

package reap

import "syscall"

// ProcAttr starts the command leading a process group of its own, so the
// group can be signalled as one.
func ProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
