//go:build !unix

package mcpgate

import "io/fs"

// private has nothing to check where files carry no Unix mode: the
// token lives in the person's profile folder, whose access list keeps
// other accounts out.
func private(string, fs.FileInfo) error { return nil }
