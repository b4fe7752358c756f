package textdiff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomLines is n lines drawn from an alphabet of k.
func randomLines(r *rand.Rand, n, k int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("l%d\n", r.IntN(k))
	}
	return out
}

// mutate changes about edits lines of a: deleted, inserted or replaced.
func mutate(r *rand.Rand, a []string, edits, k int) []string {
	b := slices.Clone(a)
	for range edits {
		i := r.IntN(len(b) + 1)
		switch r.IntN(3) {
		case 0:
			if i < len(b) {
				b = slices.Delete(b, i, i+1)
			}
		case 1:
			b = slices.Insert(b, i, fmt.Sprintf("l%d\n", r.IntN(k)))
		default:
			if i < len(b) {
				b[i] = fmt.Sprintf("l%d\n", r.IntN(k))
			}
		}
	}
	return b
}

// lcs is the length of the longest common subsequence, by the textbook
// dynamic program.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkScript checks that runs are an edit script from a to b: in order,
// covering both, equal runs equal, and no two neighbours of one kind.
func checkScript(t *testing.T, a, b []string, runs []Run) (edits int) {
	t.Helper()
	i, j := 0, 0
	for n, r := range runs {
		if r.A0 != i || r.B0 != j {
			t.Fatalf("run %d %+v starts at %d,%d", n, r, i, j)
		}
		switch r.Kind {
		case Equal:
			if r.A1-r.A0 != r.B1-r.B0 || !slices.Equal(a[r.A0:r.A1], b[r.B0:r.B1]) {
				t.Fatalf("run %d %+v is not equal", n, r)
			}
		case Delete:
			if r.B0 != r.B1 {
				t.Fatalf("run %d %+v", n, r)
			}
		case Insert:
			if r.A0 != r.A1 {
				t.Fatalf("run %d %+v", n, r)
			}
		default:
			t.Fatalf("run %d kind %q", n, r.Kind)
		}
		if r.A1 == r.A0 && r.B1 == r.B0 {
			t.Fatalf("run %d is empty", n)
		}
		if n > 0 && runs[n-1].Kind == r.Kind {
			t.Fatalf("runs %d and %d are both %c", n-1, n, r.Kind)
		}
		if r.Kind != Equal {
			edits += r.A1 - r.A0 + r.B1 - r.B0
		}
		i, j = r.A1, r.B1
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("the script ends at %d,%d of %d,%d", i, j, len(a), len(b))
	}
	if got := Apply(a, b, runs); !slices.Equal(got, b) {
		t.Fatalf("applying the script does not give b")
	}
	return edits
}

// TestDiffIsAScriptAndShortestWhenClose: on random texts, small and
// repetitive alphabets included, Diff is always an edit script from a to
// b, and the shortest one when the texts differ by a few lines.
func TestDiffIsAScriptAndShortestWhenClose(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		n, k := r.IntN(300), 1+r.IntN(8)
		a := randomLines(r, n, k)
		far := r.IntN(2) == 0
		var b []string
		if far {
			b = randomLines(r, r.IntN(300), k)
		} else {
			b = mutate(r, a, r.IntN(20), k)
		}
		edits := checkScript(t, a, b, Diff(a, b))
		if want := len(a) + len(b) - 2*lcs(a, b); !far && edits != want {
			t.Errorf("%d lines over %d kinds, a few edits apart: %d edits, the shortest has %d", n, k, edits, want)
		}
	}
}

// TestDiffOfFarApartTextsStaysAScript: texts that differ by far more
// than one window of the search still get a correct script, close to
// the shortest.
func TestDiffOfFarApartTextsStaysAScript(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := randomLines(r, 3000, 3)
	b := randomLines(r, 3000, 3)
	edits := checkScript(t, a, b, Diff(a, b))
	if shortest := len(a) + len(b) - 2*lcs(a, b); edits > shortest*3/2 {
		t.Errorf("%d edits, the shortest has %d", edits, shortest)
	}
}

func TestUnified(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n"
	b := "one\n2\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\nthirteen"
	var out bytes.Buffer
	changed, err := Unified(&out, a, b, "a.md", "b.md", 3)
	want := `--- a.md
+++ b.md
@@ -1,5 +1,5 @@
 one
-two
+2
 three
 four
 five
@@ -10,3 +10,4 @@
 ten
 eleven
 twelve
+thirteen
\ No newline at end of file
`
	if err != nil || !changed || out.String() != want {
		t.Errorf("changed %v, %v:\n%s\nwant:\n%s", changed, err, out.String(), want)
	}
	out.Reset()
	if changed, err := Unified(&out, a, a, "a", "b", 3); changed || err != nil || out.Len() != 0 {
		t.Errorf("equal texts: %v %v %q", changed, err, out.String())
	}
	out.Reset()
	if _, err := Unified(&out, "", "x\n", "a", "b", 3); err != nil || out.String() != "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("from nothing: %q", out.String())
	}
	out.Reset()
	if _, err := Unified(&out, strings.Repeat("same\n", 10)+"old\n", strings.Repeat("same\n", 10), "a", "b", 3); err != nil || out.String() != "--- a\n+++ b\n@@ -8,4 +8,3 @@\n same\n same\n same\n-old\n" {
		t.Errorf("a last line deleted: %q", out.String())
	}
}

// FuzzDiff: any two texts give an edit script from one to the other.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd")
	f.Add("", "x")
	f.Add(strings.Repeat("x\ny\n", 50), strings.Repeat("y\nx\n", 40))
	f.Fuzz(func(t *testing.T, a, b string) {
		al, bl := Lines(a), Lines(b)
		checkScript(t, al, bl, Diff(al, bl))
		if strings.Join(al, "") != a {
			t.Fatalf("Lines loses text")
		}
		var out bytes.Buffer
		if _, err := Unified(&out, a, b, "a", "b", 3); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkDiff8MB is the diff of two 8 MB texts of short lines that
// repeat (goal: under 1 s): 700,000 lines (8.3 MB) of a thousand kinds, in two
// orders.
func BenchmarkDiff8MB(b *testing.B) {
	var x, y strings.Builder
	for i := range 700000 {
		fmt.Fprintf(&x, "- point %d\n", i%1000)
		fmt.Fprintf(&y, "- point %d\n", (i*7)%1000)
	}
	a, c := x.String(), y.String()
	for b.Loop() {
		var out countWriter
		if changed, err := Unified(&out, a, c, "a", "b", 3); err != nil || !changed {
			b.Fatal(err)
		}
	}
}

type countWriter int

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }

// Apply rebuilds b from a and an edit script of Diff, to check a script
// against.
func Apply(a, b []string, runs []Run) []string {
	var out []string
	for _, r := range runs {
		switch r.Kind {
		case Equal:
			out = append(out, a[r.A0:r.A1]...)
		case Insert:
			out = append(out, b[r.B0:r.B1]...)
		}
	}
	return out
}
