//go:build unix && !linux

package tools

import "syscall"

// sysProcAttr puts the child in its own process group so the group can be
// signalled as one.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// defaultReaper is "": only Linux has child subreapers, so elsewhere a
// server runs directly, in its own process group.
func defaultReaper() string { return "" }

// groupAlive reports whether any process is left in the group (zombies
// included: without /proc they cannot be told apart).
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
