package tools

import (
	"syscall"

	"github.com/icm-tool/icm/server/internal/reap"
)

// groupAlive reports whether a process other than a zombie is still in the
// group. kill(-pgid, 0) would also count zombies, and orphaned grandchildren
// stay zombies for as long as whoever adopted them fails to reap them.
func groupAlive(pgid int) bool {
	procs := reap.Processes()
	if procs == nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, p := range procs {
		if p.Group == pgid && p.Live() {
			return true
		}
	}
	return false
}
