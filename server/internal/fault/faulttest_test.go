package fault_test

import (
	"slices"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/fault/faulttest"
)

// TestFaulttestHasEveryKind: the renderers' table tests run over
// faulttest's cases and actions, so they must be every kind and action
// of the tables, each case of its own kind.
func TestFaulttestHasEveryKind(t *testing.T) {
	cases := faulttest.Cases()
	for _, k := range fault.Kinds() {
		e, ok := cases[k]
		if !ok {
			t.Errorf("no case of kind %s", k)
			continue
		}
		if e.Kind != k {
			t.Errorf("the case of %s has kind %s", k, e.Kind)
		}
		if e.Msg == "" {
			t.Errorf("the case of %s has no message", k)
		}
	}
	if !slices.Equal(faulttest.Kinds(), fault.Kinds()) {
		t.Errorf("faulttest's kinds %v, the table's %v", faulttest.Kinds(), fault.Kinds())
	}
	if !slices.Equal(faulttest.Actions(), fault.Actions()) {
		t.Errorf("faulttest's actions %v, the table's %v", faulttest.Actions(), fault.Actions())
	}
}
