//go:build unix && !linux

package tools

import "syscall"

// groupAlive reports whether any process is left in the group (zombies
// included: without /proc they cannot be told apart).
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
