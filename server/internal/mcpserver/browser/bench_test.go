package browser

import (
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
)

// BenchmarkSummarizeLongPage summarises the ~40,000-character fixture page
// in 8 chunks against the scripted model server at 200 ms per call with 4
// slots, once with the chunks one after another and once 4 at a time, and
// reports both wall times and their ratio (the goal is at most 0.4).
//
//	go test -run '^$' -bench SummarizeLongPage -benchtime 3x ./server/internal/mcpserver/browser/
func BenchmarkSummarizeLongPage(b *testing.B) {
	p, err := PageFromBody("http://docs.test/long", []byte(sites.LongDoc()), "text/html; charset=utf-8")
	if err != nil {
		b.Fatal(err)
	}
	srv, model := newModel(b, ollamatest.Config{Latency: 200 * time.Millisecond, Slots: 4})
	scriptNotes(srv)
	seq := &Reader{Model: model, ModelName: "tiny", ChunkChars: 5500, Overlap: 300, Parallel: 1}
	par := &Reader{Model: model, ModelName: "tiny", ChunkChars: 5500, Overlap: 300, Parallel: 4}
	chunks := len(seq.chunks(p))
	var seqTime, parTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := seq.Summarize(b.Context(), p, ""); err != nil {
			b.Fatal(err)
		}
		seqTime += time.Since(start)
		start = time.Now()
		if _, err := par.Summarize(b.Context(), p, ""); err != nil {
			b.Fatal(err)
		}
		parTime += time.Since(start)
	}
	b.ReportMetric(float64(len(p.Markdown)), "page-chars")
	b.ReportMetric(float64(chunks), "chunks")
	b.ReportMetric(float64(seqTime.Milliseconds())/float64(b.N), "sequential-ms/op")
	b.ReportMetric(float64(parTime.Milliseconds())/float64(b.N), "parallel-ms/op")
	b.ReportMetric(float64(parTime)/float64(seqTime), "parallel/sequential")
	if peak := srv.Stats().PeakActive; peak != 4 {
		b.Errorf("peak concurrency %d, want 4", peak)
	}
}
