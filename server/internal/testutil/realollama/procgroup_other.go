//go:build unix && !linux

package realollama

import (
	"errors"
	"syscall"
)

// newProcessGroup puts the server in a group of its own, so Stop can reach
// its runner children too.
func newProcessGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// GroupMembers reports whether the group still has a process; without
// /proc it cannot tell which ones, so it returns the group id for all.
func GroupMembers(pgid int) ([]int, error) {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return nil, nil
	}
	return []int{pgid}, nil
}
