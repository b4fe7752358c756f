package reap

import (
	"os"
	"runtime"
)

// Self is the binary that can be the reaper (this one), or "" where
// there is no child subreaper to be (anything but Linux).
func Self() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
