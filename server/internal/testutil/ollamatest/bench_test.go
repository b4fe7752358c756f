package ollamatest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// BenchmarkForEachSlots runs 8 items at once against a server taking 200 ms
// per call, with 1 to 8 slots: the time per batch should be about
// ceil(8/slots) * 200 ms, and peak-active should equal the slots.
func BenchmarkForEachSlots(b *testing.B) {
	for _, slots := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			srv := ollamatest.New(b, ollamatest.Config{Latency: 200 * time.Millisecond, Slots: slots})
			srv.Default(ollamatest.Text("an item"))
			ctx := b.Context()
			for b.Loop() {
				var wg sync.WaitGroup
				for range 8 {
					wg.Go(func() {
						if _, err := chat(ctx, srv, userCall("item")); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(srv.PeakConcurrency()), "peak-active")
		})
	}
}

// BenchmarkChatStream measures the server's own cost per streamed call
// (no latency, a 100-word answer). It posts with net/http rather than
// api.Client, whose 8 MB line buffer per call would dominate the figure.
func BenchmarkChatStream(b *testing.B) {
	srv := ollamatest.New(b, ollamatest.Config{})
	srv.Default(ollamatest.Text(strings.Repeat("word ", 100)))
	body := `{"model":"tiny","messages":[{"role":"user","content":"hi"}]}`
	for b.Loop() {
		resp, err := http.Post(srv.URL()+"/api/chat", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || n == 0 {
			b.Fatalf("status %d, %d bytes, %v", resp.StatusCode, n, err)
		}
	}
}
