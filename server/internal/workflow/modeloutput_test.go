package workflow_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// A For each stage whose outputs all hold a placeholder fails before any
// model call with an error about its contract (its items are joined into
// one file, which it does not name): the editor offers to open it, and the
// CLI says what to add. A stage without For each names its files through
// the write tool instead (TestWriteToolRunsATemplateStage).
func TestStageWithoutAConcreteOutputFailsOnItsContract(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	contract := filepath.Join(h.dir, "pipeline", "02-write", "CONTEXT.md")
	text, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(contract, []byte(strings.Replace(string(text), "- parts.md -> output/", "- part-{slug}.md -> output/", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = h.run(workflow.Options{Stage: "02-write"})
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Kind != fault.KindContractInvalid || fe.File != contract {
		t.Fatalf("err = %v (%#v), want a contract-invalid fault on %s", err, fe, contract)
	}
	// The small workspace's 02-write names its output on line 10.
	if fe.Line != 10 {
		t.Errorf("the error points at line %d of the contract, want its output's line 10", fe.Line)
	}
	if !strings.Contains(fe.Msg, "report.md -> output/") {
		t.Errorf("the error does not say what to add: %s", fe.Msg)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d model calls before the contract was refused", n)
	}
}
