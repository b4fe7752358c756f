package faulttest

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
)

func TestEveryKindHasACase(t *testing.T) {
	cases := Cases()
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
	if len(cases) != len(fault.Kinds()) {
		t.Errorf("%d cases for %d kinds", len(cases), len(fault.Kinds()))
	}
}
