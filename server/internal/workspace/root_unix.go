//go:build unix

package workspace

import (
	"errors"
	"syscall"
)

// openNonblock opens without waiting: opening a named pipe for reading
// would otherwise block until a writer comes, which may be never.
const openNonblock = syscall.O_NONBLOCK

// folderBudget is how many folder handles a pass may hold: an eighth of
// the files the process may have open, so a pass never starves the rest
// of the process (the language server runs tool servers beside checks).
func folderBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return int(min(lim.Cur/8, maxFolderHandles))
}

func isLoop(err error) bool   { return errors.Is(err, syscall.ELOOP) }
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
