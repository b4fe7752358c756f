//go:build unix

package workspace

import (
	"errors"
	"syscall"
)

// openNonblock opens without waiting: opening a named pipe for reading
// would otherwise block until a writer comes, which may be never.
const openNonblock = syscall.O_NONBLOCK

func isLoop(err error) bool   { return errors.Is(err, syscall.ELOOP) }
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
