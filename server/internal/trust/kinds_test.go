package trust_test

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestTheHostileWorkspaceNamesEveryKind: the trust matrices (CLI,
// language server, workspace server) run against trusttest's hostile
// workspace, so a kind of part it does not name is a kind they do not
// check: a new kind fails here until the hostile workspace names one,
// and every command it names is pinned as the kinds of pins say.
func TestTheHostileWorkspaceNamesEveryKind(t *testing.T) {
	h := trusttest.NewHostile(t, trusttest.HostileOptions{})
	parts := trust.Of(open(t, h.Dir), trust.Options{})
	named := map[trust.Kind]int{}
	pinned := false
	for _, p := range parts {
		named[p.Kind]++
		for _, pin := range p.Pins {
			pinned = pinned || pin.How == trust.Content && pin.File == h.Script
		}
	}
	for _, k := range trust.Kinds() {
		if named[k] == 0 {
			t.Errorf("the hostile workspace names no part of kind %q: add one to trusttest.NewHostile, so the trust matrices check it", k)
		}
	}
	if !pinned {
		t.Errorf("the hostile workspace's script %s is not pinned by its content: %v", h.Script, parts)
	}
	if !parts.Names(trust.Pull, h.Registry+"/ns/m:latest, pulls from "+h.Registry) {
		t.Errorf("the model on the registry %s is not a part: %v", h.Registry, parts)
	}
}
