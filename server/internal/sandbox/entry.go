package sandbox

import "os"

// Arguments that make this binary act as the sandbox's init or as the
// launcher of one step instead of its usual self.
const (
	initArg = "__icm-sandbox-init"
	execArg = "__icm-sandbox-exec"
)

// Main lets this binary serve as the sandbox's init and step launcher.
// Call it first thing in main (and in TestMain of tests that run the
// sandbox through the test binary): when the process was started as one of
// them it does that job and exits; otherwise it returns at once.
func Main() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case initArg:
		os.Exit(initMain())
	case execArg:
		os.Exit(execMain())
	}
}
