//go:build !linux

package browser

import "os/exec"

// dieWithParent does nothing where the kernel cannot kill a child with
// its parent: Close stops the browser.
func dieWithParent(*exec.Cmd) {}
