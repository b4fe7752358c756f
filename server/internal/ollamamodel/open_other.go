//go:build !unix

package ollamamodel

import "io/fs"

// openNonblock is zero where the system has no such flag; the file type
// is still checked on the descriptor.
const openNonblock = 0

// stored is unknown here.
func stored(fs.FileInfo) (int64, bool) { return 0, false }
