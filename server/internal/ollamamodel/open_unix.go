//go:build unix

package ollamamodel

import (
	"io/fs"
	"syscall"
)

// openNonblock opens without waiting for a writer (see open.go).
const openNonblock = syscall.O_NONBLOCK

// stored is how many bytes of the file's data are on disk (a sparse
// file's holes hold none), and whether the system says.
func stored(info fs.FileInfo) (int64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Blocks * 512, true
}
