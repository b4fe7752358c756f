//go:build unix

package mcpfixture

import "syscall"

// newSession starts a process in a session (and process group) of its
// own, the way a daemonising helper leaves its parent's group.
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
