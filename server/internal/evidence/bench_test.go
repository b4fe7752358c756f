package evidence

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchText writes about n words of Markdown drawn from stream, a list
// of words in the order a text has them, with a fixed generator, so that
// word frequencies are those of real prose and every run is the same:
// headings every few paragraphs, sentences of 8 to 25 words.
func benchText(stream []string, n int, seed uint64) string {
	var b strings.Builder
	next := func(k int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(k))
	}
	words := 0
	for para := 0; words < n; para++ {
		if para%4 == 0 {
			fmt.Fprintf(&b, "## %s %s\n\n", stream[next(len(stream))], stream[next(len(stream))])
		}
		for s := 3 + next(4); s > 0; s-- {
			at, length := next(len(stream)-30), 8+next(18)
			sentence := strings.Join(stream[at:at+length], " ")
			b.WriteString(strings.ToUpper(sentence[:1]) + sentence[1:] + ". ")
			words += length
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// benchInput is a 5,000-word output against 50,000 words of sources: the
// quality set's sources and paragraphs, and text drawn from them, split
// into 20 input files and 30 fetched pages.
func benchInput(b *testing.B) Input {
	b.Helper()
	topics := loadQuality(b)
	var stream []string
	var sources []Source
	var paras []string
	words := 0
	for _, qt := range topics {
		for _, s := range qt.sources {
			stream = append(stream, strings.Fields(string(s.Text))...)
			sources = append(sources, s)
			words += len(strings.Fields(string(s.Text)))
		}
		for _, p := range qt.paras {
			paras = append(paras, p.text)
		}
	}
	for i := 0; words < 50000; i++ {
		text := benchText(stream, 1400, uint64(i+1))
		words += len(strings.Fields(text))
		s := Source{Kind: SourceInput, Name: fmt.Sprintf("inputs/%02d.md", i), Text: []byte(text)}
		if i%5 >= 2 {
			url := fmt.Sprintf("https://pages.example/%d", i)
			s = Source{Kind: SourceTool, Name: url, URL: url, Tool: "fetch", CallID: fmt.Sprintf("call_%d", i), Text: []byte(text)}
		}
		sources = append(sources, s)
	}
	out := "# Report\n\n" + strings.Join(paras, "\n\n") + "\n\n"
	out += benchText(stream, 5000-len(strings.Fields(out)), 99)
	return Input{Path: "output/report.md", Text: []byte(out), Sources: sources}
}

func countWords(in Input) (out, src int) {
	for _, s := range in.Sources {
		src += len(strings.Fields(string(s.Text)))
	}
	return len(strings.Fields(string(in.Text))), src
}

// BenchmarkEvidence measures evidence for a 5,000-word output against
// 50,000 words of sources, computed afresh (cold) and from a cache. The
// goal is under 300 ms cold on one core: go test -bench Evidence -cpu 1.
func BenchmarkEvidence(b *testing.B) {
	in := benchInput(b)
	outWords, srcWords := countWords(in)
	b.Run("cold", func(b *testing.B) {
		var res *Result
		for b.Loop() {
			res = Compute(context.Background(), in, Options{})
		}
		if res.Partial {
			b.Fatalf("partial: %v", res.Limits)
		}
		b.ReportMetric(float64(outWords), "output-words")
		b.ReportMetric(float64(srcWords), "source-words")
		b.ReportMetric(float64(len(res.Units)), "units")
	})
	b.Run("cached", func(b *testing.B) {
		c := NewCache(4)
		c.Compute(context.Background(), in, Options{})
		for b.Loop() {
			if !c.Compute(context.Background(), in, Options{}).Cached {
				b.Fatal("not cached")
			}
		}
	})
}
