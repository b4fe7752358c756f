// Package need is how a test says what it needs from outside the
// repository: a program, the shared material beside the repository, the
// real Ollama server. When that is missing the test skips with the reason,
// so a fresh clone's `make test` is green and its closing report names what
// did not run; where ICM_TEST_REQUIRE_ALL is set (.ci/run sets it) the same
// words fail the test instead, so CI runs every test.
package need

import (
	"os"
	"os/exec"
	"testing"
)

// RequireAllEnv names the variable that turns a missing need into a
// failure: set to anything but "" or "0".
const RequireAllEnv = "ICM_TEST_REQUIRE_ALL"

// Missing ends the test for a need that is not met: it skips with "needs
// WHAT: WHY", or fails with the same words when RequireAllEnv is set.
func Missing(t testing.TB, what, why string) {
	t.Helper()
	msg := "needs " + what + ": " + why
	if v := os.Getenv(RequireAllEnv); v != "" && v != "0" {
		t.Fatal(msg + " (" + RequireAllEnv + " is set: every test must run here)")
		return
	}
	t.Skip(msg)
}

// Check ends the test as Missing does when err, the reason what is not
// there, is not nil.
func Check(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		Missing(t, what, err.Error())
	}
}

// Program returns the path of the program name on PATH. When it is not
// there, Missing ends the test, saying how to install it.
func Program(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, "it is not on PATH; "+install(name))
	}
	return p
}

// install says how to get a program a test needs; .ci/run installs each.
func install(name string) string {
	switch name {
	case "xmllint":
		return "install the Debian package libxml2-utils (.ci/run does)"
	case "nvim":
		return "install the Debian package neovim (.ci/run does)"
	case "chromium", "python3", "git":
		return "install the Debian package " + name + " (.ci/run does)"
	case "node", "npm":
		return "install Node.js with npm (the extension's build needs them too)"
	}
	return "install it"
}
