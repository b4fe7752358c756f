//go:build !unix

package check

import "time"

// cpuTime is zero where the system does not report it; the benchmark then
// reports wall time only.
func cpuTime() time.Duration { return 0 }
