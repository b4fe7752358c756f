//go:build unix

package check

import (
	"syscall"
	"time"
)

// cpuTime is the processor time the process has used so far, user and
// system: on a shared machine it moves far less with other processes'
// load than the wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
