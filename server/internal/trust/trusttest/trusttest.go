// Package trusttest gives tests one way to trust a workspace: a grant in
// a temporary config folder of the test's own, exactly as `icm trust`
// writes it. There is no switch that turns the gate off.
package trusttest

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/usersettings"
	"github.com/icm-tool/icm/server/internal/workspace"
)

var dirs sync.Map // testing.TB -> its config folder

// ConfigDir points ICM_CONFIG_DIR at a temporary folder of the test's
// own (the same one for every call within a test) and returns it.
func ConfigDir(t testing.TB) string {
	t.Helper()
	if d, ok := dirs.Load(t); ok && os.Getenv(usersettings.ConfigDirEnv) == d.(string) {
		return d.(string)
	}
	d := t.TempDir()
	t.Setenv(usersettings.ConfigDirEnv, d)
	dirs.Store(t, d)
	t.Cleanup(func() { dirs.Delete(t) })
	return d
}

// Store is the store in the test's config folder.
func Store(t testing.TB) trust.Store {
	t.Helper()
	ConfigDir(t)
	s, err := trust.StoreFor(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Grant trusts the workspace at dir for what it names now, with extra
// parts (an editor's workspace-scope settings) besides, in the test's
// config folder; it returns the record. Change the workspace afterwards
// and it is untrusted again, as for a person.
func Grant(t testing.TB, dir string, extra ...trust.Part) *trust.Record {
	t.Helper()
	store := Store(t)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatalf("trusttest: unable to open %s: %v", dir, err)
	}
	defer ws.Close()
	rec, err := store.Grant(ws.Root, trust.Of(ws, trust.Options{Extra: extra}), "a test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
