package trust_test

import (
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// BenchmarkDecide is what every session pays when it opens: the parts of
// the tech-article sample (7 stages, 3 tool servers, 4 Script stages)
// and the decision against a record that covers them.
func BenchmarkDecide(b *testing.B) {
	dir := wstest.Copy(b, "tech-article")
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	store := trust.Store{Dir: b.TempDir()}
	if _, err := store.Grant(ws.Root, trust.Of(ws, trust.Options{}), "bench", time.Now()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		d := trust.Decide(ws.Root, trust.Of(ws, trust.Options{}), trust.Inputs{Store: store})
		if !d.Allowed() {
			b.Fatal(d.Summary())
		}
	}
}
