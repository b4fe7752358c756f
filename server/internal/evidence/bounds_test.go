package evidence

import (
	"context"
	"strings"
	"testing"
	"time"
)

// boundSources are two inputs of a few sentences each.
var boundSources = []Source{
	{Kind: SourceInput, Name: "a.md", Text: []byte("The orchard holds 212 apple trees on a south-facing slope.\n\nWinter pruning runs from December to February.\n")},
	{Kind: SourceInput, Name: "b.md", Text: []byte("The bike share opened with 40 docking stations.\n\nRiders unlock bikes with the app or a contactless card.\n")},
}

const boundOutput = "The orchard holds 212 apple trees on a south-facing slope.\n\nWinter pruning runs from December to February.\n\nThe bike share opened with 40 docking stations.\n\nRiders unlock bikes with the app or a contactless card.\n"

func TestBounds(t *testing.T) {
	for _, c := range []struct {
		name  string
		ctx   func() context.Context
		opt   Options
		units int
		// statuses of the units, in order
		want  string
		limit string
	}{
		{"units", context.Background, Options{MaxUnits: 2}, 2, "supported supported", "the first 2 were checked"},
		{"output bytes", context.Background, Options{MaxOutputBytes: 70}, 1, "supported", "the output was read up to 60 bytes"},
		{"source bytes", context.Background, Options{MaxSourceBytes: 110}, 4, "supported supported unsupported unsupported", "the sources were read up to 110 bytes"},
		{"passages", context.Background, Options{MaxPassages: 3}, 4, "supported supported supported unsupported", "split into 3 passages"},
		{"time", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, Options{}, 4, "unchecked unchecked unchecked unchecked", "time ran out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Compute(c.ctx(), Input{Text: []byte(boundOutput), Sources: boundSources}, c.opt)
			var got []string
			for _, u := range res.Units {
				got = append(got, string(u.Status))
			}
			if len(res.Units) != c.units || strings.Join(got, " ") != c.want {
				t.Errorf("units %q, want %q", got, c.want)
			}
			if !res.Partial || !strings.Contains(strings.Join(res.Limits, "; "), c.limit) {
				t.Errorf("partial %v, limits %q: want one saying %q", res.Partial, res.Limits, c.limit)
			}
			if !strings.HasSuffix(res.Summary.Text, "partial") {
				t.Errorf("summary %q does not say it is partial", res.Summary.Text)
			}
		})
	}
}

func TestWithinBoundsIsWhole(t *testing.T) {
	res := Compute(context.Background(), Input{Text: []byte(boundOutput), Sources: boundSources}, Options{})
	if res.Partial || len(res.Limits) != 0 || res.Summary.Text != "4 of 4 paragraphs supported" {
		t.Errorf("partial %v %q, summary %q", res.Partial, res.Limits, res.Summary.Text)
	}
}

// TestEmbedTimeBound: a model that answers nothing is given up at
// MaxEmbedTime, and the result, lexical, says so instead of waiting.
func TestEmbedTimeBound(t *testing.T) {
	in := Input{Text: []byte(semanticOutput + "\n" + boundOutput), Sources: append([]Source{{Kind: SourceInput, Name: "brief.md", Text: []byte(semanticSource)}}, boundSources...)}
	res := Compute(context.Background(), in, Options{MaxEmbedTime: 50 * time.Millisecond, Embedder: hangingEmbedder{}})
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "deadline exceeded") || !strings.Contains(res.Notes[0], "check that the model server is running") || res.Method != "lexical" {
		t.Errorf("notes %q, method %q", res.Notes, res.Method)
	}
	if res.Units[0].Status != Unsupported || res.Units[0].Semantic != nil || res.Units[1].Status != Supported || res.Threshold != DefaultThreshold {
		t.Errorf("lexical scores still decide: %+v, threshold %v", res.Units[:2], res.Threshold)
	}
}

type hangingEmbedder struct{}

func (hangingEmbedder) Model() string { return "hangs" }

func (hangingEmbedder) Embed(ctx context.Context, _ []string) ([][]float32, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestSourceBytesStopAtTheFirstCut: once a source is cut at the bound,
// no later source is read, even one small enough for what is left.
func TestSourceBytesStopAtTheFirstCut(t *testing.T) {
	sources := []Source{
		{Kind: SourceInput, Name: "long.md", Text: []byte("The orchard holds 212 apple trees on a south-facing slope.\nWinter pruning runs from December to February.\n")},
		{Kind: SourceInput, Name: "short.md", Text: []byte("Bikes dock.\n")},
	}
	res := Compute(context.Background(), Input{Text: []byte("Bikes dock at stations.\n"), Sources: sources}, Options{MaxSourceBytes: 80})
	if u := res.Units[0]; len(u.Support) != 0 {
		t.Errorf("a source after the cut was read: %+v", u.Support)
	}
}

// TestFetchedPastABoundIsStillRead: a page the run fetched is no "URL
// never read" because evidence stopped reading before its text.
func TestFetchedPastABoundIsStillRead(t *testing.T) {
	sources := append(append([]Source(nil), boundSources...), Source{Kind: SourceTool, Name: "https://late.example/p", URL: "https://late.example/p", Text: []byte("Late page.\n")})
	res := Compute(context.Background(), Input{Text: []byte("The orchard holds 212 apple trees (https://late.example/p).\n"), Sources: sources}, Options{MaxPassages: 1})
	if !res.Partial || len(res.Units[0].Marks) != 0 {
		t.Errorf("partial %v, marks %+v", res.Partial, res.Units[0].Marks)
	}
}
