package browser

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the browser when icm goes, as
// chromedp does when nothing else changes its command.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
