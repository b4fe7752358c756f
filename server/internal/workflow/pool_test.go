package workflow_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// poolWorkspace is one For each stage over an n-item plan, with its model
// calls spread over servers (slots calls each) through [[model.servers]].
func poolWorkspace(tb testing.TB, n, parallel, slots int, provider string, urls ...string) string {
	tb.Helper()
	var servers strings.Builder
	for _, u := range urls {
		fmt.Fprintf(&servers, "[[model.servers]]\nurl = %q\nslots = %d\n", u, slots)
	}
	return forEachWorkspaceWith(tb, n, parallel, fmt.Sprintf("provider = %q\ncontext_length = 32768\n%s", provider, servers.String()))
}

func poolClient(tb testing.TB, dir string) llm.Client {
	tb.Helper()
	c, err := llm.FromConfig(openWS(tb, dir).Config.Model, func(string) string { return "" }, llm.WithPermit(act.Own("a test's own model server")))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestPoolSurvivesAServerFailingMidRun spreads a For each stage over two
// servers; the second breaks after answering two calls. The run completes
// on the first, and while both were up both took calls.
func TestPoolSurvivesAServerFailingMidRun(t *testing.T) {
	for _, provider := range []string{llm.ProviderOllama, llm.ProviderOpenAI} {
		t.Run(provider, func(t *testing.T) {
			cfg := ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768}}, Slots: 2, Latency: 20 * time.Millisecond, AllowUnscripted: true}
			a, b := ollamatest.New(t, cfg), ollamatest.New(t, cfg)
			scriptSmall(a, 12)
			// b answers its two calls only once a has received one, so b
			// cannot break before a took a call however the machine
			// schedules the two servers' requests (under load, a's first
			// request reached it after b had answered two and broken).
			// The bound only matters when the pool never sends a call to
			// a: the check below then fails instead of the test hanging.
			aTook := make(chan struct{})
			go func() {
				defer close(aTook)
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				_ = a.AwaitChats(ctx, 1)
			}()
			var answered atomic.Int32
			b.On(ollamatest.Any()).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
				if answered.Add(1) > 2 {
					return ollamatest.Fail(503, "") // the server broke
				}
				u := r.LastUser()
				i := strings.Index(u, "\n## Part ")
				return ollamatest.Text("## Part " + u[i+9:i+10] + "\n\nText of the part.").WithHold(aTook)
			})
			urls := []string{a.URL(), b.URL()}
			if provider == llm.ProviderOpenAI {
				urls = []string{a.URL() + "/v1", b.URL() + "/v1"}
			}
			dir := poolWorkspace(t, 12, 4, 2, provider, urls...)
			sum := runOnce(t, dir, poolClient(t, dir))
			if len(sum.Ran) != 1 || sum.Ran[0].Status != "done" || sum.Ran[0].Items != 12 {
				t.Fatalf("run: %+v", sum.Ran)
			}
			out, err := os.ReadFile(filepath.Join(dir, "pipeline/01-write/output/parts.md"))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 12; i++ {
				if !strings.Contains(string(out), "## Part "+string(rune('A'+i))) {
					t.Errorf("part %c missing from the output", 'A'+i)
				}
			}
			// The run can end before the servers have recorded their last
			// answers (the client returns with the last byte).
			for _, srv := range []*ollamatest.Server{a, b} {
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				err := srv.AwaitAnswered(ctx)
				cancel()
				if err != nil {
					t.Fatal(err)
				}
			}
			// When did b break, and what had each server answered by then?
			var broke time.Time
			okB := 0
			for _, r := range b.Requests() {
				if r.Chat == nil {
					continue
				}
				if r.Status == 200 {
					okB++
				} else if broke.IsZero() || r.Received.Before(broke) {
					broke = r.Received
				}
			}
			okA, aBefore := 0, 0
			for _, r := range a.Requests() {
				if r.Chat != nil && r.Status == 200 {
					okA++
					if r.Received.Before(broke) {
						aBefore++
					}
				}
			}
			if okB != 2 || broke.IsZero() || aBefore == 0 {
				t.Errorf("b answered %d calls and broke at %v; a answered %d calls before that", okB, broke, aBefore)
			}
			if okA+okB != 12 {
				t.Errorf("%d answers for 12 items (a %d, b %d)", okA+okB, okA, okB)
			}
			// After breaking, b sat out its cooldown rather than fail call after call.
			if failed := len(b.ChatRequests()) - okB; failed > 2 {
				t.Errorf("b failed %d calls; a failing server should be left out after one (two when calls were already on their way)", failed)
			}
		})
	}
}

// BenchmarkForEach16TwoServers runs For each over 16 items on two servers
// of 4 slots each, at 200 ms per call, 8 items at a time: the ideal wall
// time is 16/8 x 200 ms = 400 ms. It reports each server's peak
// concurrency.
func BenchmarkForEach16TwoServers(b *testing.B) {
	for _, provider := range []string{llm.ProviderOllama, llm.ProviderOpenAI} {
		b.Run(provider, func(b *testing.B) {
			cfg := ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768}}, Slots: 4, Latency: 200 * time.Millisecond}
			s1, s2 := ollamatest.New(b, cfg), ollamatest.New(b, cfg)
			scriptSmall(s1, 16)
			scriptSmall(s2, 16)
			urls := []string{s1.URL(), s2.URL()}
			if provider == llm.ProviderOpenAI {
				urls = []string{s1.URL() + "/v1", s2.URL() + "/v1"}
			}
			dir := poolWorkspace(b, 16, 8, 4, provider, urls...)
			client := poolClient(b, dir)
			for b.Loop() {
				runOnce(b, dir, client)
			}
			b.ReportMetric(float64(s1.PeakConcurrency()), "peak-calls-server1")
			b.ReportMetric(float64(s2.PeakConcurrency()), "peak-calls-server2")
		})
	}
}
