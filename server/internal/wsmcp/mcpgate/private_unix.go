//go:build unix

package mcpgate

import (
	"io/fs"
	"os"
	"syscall"
)

// private checks that only the person may read the file: its owner is
// this process's user and neither its group nor others have any access.
func private(file string, info fs.FileInfo) error {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return badTokenFile(file, "%s belongs to another user (uid %d): the workspace server's token must be yours alone; remove it, and icm makes a new one", file, st.Uid)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return badTokenFile(file, "%s can be read by others (mode %#o): its token lets whoever holds it hand in outputs and run stages; make it yours alone with chmod 600 %s, or remove it for a new token", file, perm, file)
	}
	return nil
}
