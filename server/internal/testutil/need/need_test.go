package need

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recorder stands for a test: it notes whether Missing skipped or failed
// it, and with which words, instead of ending the goroutine (any other
// method of testing.TB would panic on the nil it embeds).
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...) }

func TestMissingSkipsWithTheReason(t *testing.T) {
	t.Setenv(RequireAllEnv, "")
	r := &recorder{}
	Missing(r, "../shared", "there is no shared folder beside the repository")
	if r.failed != "" || r.skipped != "needs ../shared: there is no shared folder beside the repository" {
		t.Errorf("skipped %q, failed %q", r.skipped, r.failed)
	}
	t.Setenv(RequireAllEnv, "0")
	r = &recorder{}
	Check(r, "the code sandbox", errors.New("it needs root"))
	if r.failed != "" || r.skipped != "needs the code sandbox: it needs root" {
		t.Errorf("with %s=0: skipped %q, failed %q", RequireAllEnv, r.skipped, r.failed)
	}
}

func TestMissingFailsWhenEverythingIsRequired(t *testing.T) {
	t.Setenv(RequireAllEnv, "1")
	r := &recorder{}
	Missing(r, "xmllint", "it is not on PATH")
	if r.skipped != "" || !strings.HasPrefix(r.failed, "needs xmllint: it is not on PATH (") || !strings.Contains(r.failed, RequireAllEnv+" is set") {
		t.Errorf("skipped %q, failed %q", r.skipped, r.failed)
	}
}

func TestCheckOfNoErrorLetsTheTestRun(t *testing.T) {
	t.Setenv(RequireAllEnv, "1")
	r := &recorder{}
	Check(r, "git", nil)
	if r.skipped != "" || r.failed != "" {
		t.Errorf("skipped %q, failed %q", r.skipped, r.failed)
	}
}

func TestProgram(t *testing.T) {
	t.Setenv(RequireAllEnv, "")
	t.Setenv("PATH", t.TempDir())
	r := &recorder{}
	if p := Program(r, "xmllint"); p != "" || r.skipped != "needs xmllint: it is not on PATH; install the Debian package libxml2-utils (.ci/run does)" {
		t.Errorf("path %q, skipped %q", p, r.skipped)
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	r = &recorder{}
	if p := Program(r, "sh"); p == "" || r.skipped != "" || r.failed != "" {
		t.Errorf("sh: path %q, skipped %q, failed %q", p, r.skipped, r.failed)
	}
}
