// Package textdiff compares two texts line by line and writes the
// difference as a unified diff, in time and memory that grow linearly
// with the texts, whatever they hold.
//
// The comparison is Myers' greedy algorithm run in windows: from where
// the texts last agreed it looks for the shortest edit at most maxEdits
// lines long; when the rest of the texts differ by more, it keeps the path
// that got furthest, emits it, and starts again from there. The result is
// always a correct edit script (applied to the first text it gives the
// second); it is the shortest one whenever the texts differ by at most
// maxEdits lines between two stretches they share, and close to it
// otherwise. Each window costs at most maxEdits² steps plus the lines it
// moves past, and moves past at least maxEdits of them, so the whole
// comparison is O((N+M)·maxEdits). Repetitive lines, which make diffs
// that look for the longest matching block quadratic, cost nothing more.
package textdiff

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// maxEdits bounds one window of the search (see the package comment).
const maxEdits = 64

// Kinds of a run of lines in an edit script.
const (
	Equal  = '='
	Delete = '-'
	Insert = '+'
)

// Run is a stretch of an edit script: lines A[A0:A1] kept as B[B0:B1]
// (Equal), deleted from A (Delete: B0 == B1) or inserted from B (Insert:
// A0 == A1).
type Run struct {
	Kind           byte
	A0, A1, B0, B1 int
}

// Lines splits text into lines, each with its newline (the last one may
// have none).
func Lines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Diff returns an edit script from a to b: its runs cover both in order,
// each as long as it can be (no two neighbours of one kind).
func Diff(a, b []string) []Run {
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	s := &script{}
	var buf search
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		i, j = buf.window(x, y, i, j, s)
	}
	return grouped(s.runs)
}

// grouped turns each stretch of changes between equal runs into one
// deletion followed by one insertion, as a unified diff shows a change:
// within such a stretch every line of a is deleted and every line of b
// inserted, whatever order the search found them in.
func grouped(runs []Run) []Run {
	out := runs[:0:0]
	for i := 0; i < len(runs); {
		if runs[i].Kind == Equal {
			out = append(out, runs[i])
			i++
			continue
		}
		a0, b0 := runs[i].A0, runs[i].B0
		a1, b1 := a0, b0
		for ; i < len(runs) && runs[i].Kind != Equal; i++ {
			a1, b1 = max(a1, runs[i].A1), max(b1, runs[i].B1)
		}
		if a1 > a0 {
			out = append(out, Run{Kind: Delete, A0: a0, A1: a1, B0: b0, B1: b0})
		}
		if b1 > b0 {
			out = append(out, Run{Kind: Insert, A0: a1, A1: a1, B0: b0, B1: b1})
		}
	}
	return out
}

// script collects runs, joining neighbours of one kind.
type script struct{ runs []Run }

func (s *script) add(kind byte, a0, a1, b0, b1 int) {
	if a0 == a1 && b0 == b1 {
		return
	}
	if n := len(s.runs); n > 0 && s.runs[n-1].Kind == kind {
		s.runs[n-1].A1, s.runs[n-1].B1 = a1, b1
		return
	}
	s.runs = append(s.runs, Run{Kind: kind, A0: a0, A1: a1, B0: b0, B1: b1})
}

// search holds one window's furthest points per edit count, reused from
// window to window.
type search struct {
	v []int // the furthest x on each diagonal, offset by maxEdits+1; -1: not reached
	// trace[d] is v after d edits on the diagonals d edits reach (every
	// other one, from -d to d).
	trace [][]int
	steps []step
}

// step is one edit of a path and the equal lines after it.
type step struct {
	kind         byte // Delete or Insert; 0 for the first snake
	xs, ys       int  // after the step, where its snake starts
	xe, ye       int  // where the snake ends
	stepX, stepY int  // the line the step deletes or inserts
}

// window runs the search from (i, j), emits the path it keeps into s and
// returns where it ended: the end of both texts, or the furthest point
// maxEdits edits reach.
func (w *search) window(a, b []int32, i, j int, s *script) (int, int) {
	n, m := len(a)-i, len(b)-j
	const off = maxEdits + 1
	if w.v == nil {
		w.v = make([]int, 2*off+1)
		w.trace = make([][]int, maxEdits+1)
		for d := range w.trace {
			w.trace[d] = make([]int, d+1)
		}
		w.steps = make([]step, maxEdits+1)
	}
	v := w.v
	for k := range v {
		v[k] = -1
	}
	endD, endK := -1, 0
	for d := 0; d <= maxEdits && endD < 0; d++ {
		for k := -d; k <= d; k += 2 {
			if k < -m || k > n {
				v[off+k] = -1
				continue
			}
			var x int
			switch {
			case d == 0:
				x = 0
			case fromAbove(v, off, k):
				x = v[off+k+1] // an insertion: one more line of b
			default:
				x = v[off+k-1] + 1 // a deletion: one more line of a
			}
			y := x - k
			if x < 0 || x > n || y < 0 || y > m {
				v[off+k] = -1
				continue
			}
			for x < n && y < m && a[i+x] == b[j+y] {
				x++
				y++
			}
			v[off+k] = x
			if x == n && y == m {
				endD, endK = d, k
			}
		}
		for k, t := -d, w.trace[d]; k <= d; k += 2 {
			t[(k+d)/2] = v[off+k]
		}
		if endD < 0 && d == maxEdits {
			// Too far apart: keep the path that got furthest.
			best := -1
			for k := -d; k <= d; k += 2 {
				if x := v[off+k]; x >= 0 && 2*x-k > best {
					best, endD, endK = 2*x-k, d, k
				}
			}
		}
	}
	w.emit(a, b, i, j, endD, endK, s)
	x := w.trace[endD][(endD+endK)/2]
	return i + x, j + x - endK
}

// fromAbove says the furthest point on diagonal k at the next edit count
// comes from diagonal k+1 (an insertion) rather than k-1 (a deletion).
func fromAbove(v []int, off, k int) bool {
	above, left := v[off+k+1], v[off+k-1]
	switch {
	case above < 0:
		return false
	case left < 0:
		return true
	}
	return left < above
}

// emit walks the path to (d, k) back to the window's start and adds its
// runs to s in order.
func (w *search) emit(a, b []int32, i, j, d, k int, s *script) {
	steps := w.steps[:d+1]
	for ; d >= 0; d-- {
		xe := w.trace[d][(d+k)/2]
		ye := xe - k
		if d == 0 {
			steps[0] = step{xs: 0, ys: 0, xe: xe, ye: ye}
			break
		}
		prev := w.trace[d-1]
		pv := func(kk int) int {
			if kk < -(d-1) || kk > d-1 {
				return -1
			}
			return prev[(kk+d-1)/2]
		}
		var st step
		above, left := pv(k+1), pv(k-1)
		if above >= 0 && (left < 0 || left < above) {
			st = step{kind: Insert, xs: above, ys: above - k, stepX: above, stepY: above - k - 1}
			k++
		} else {
			st = step{kind: Delete, xs: left + 1, ys: left + 1 - k, stepX: left, stepY: left + 1 - k}
			k--
		}
		st.xe, st.ye = xe, ye
		steps[d] = st
	}
	for _, st := range steps {
		switch st.kind {
		case Insert:
			s.add(Insert, i+st.stepX, i+st.stepX, j+st.stepY, j+st.stepY+1)
		case Delete:
			s.add(Delete, i+st.stepX, i+st.stepX+1, j+st.stepY, j+st.stepY)
		}
		s.add(Equal, i+st.xs, i+st.xe, j+st.ys, j+st.ye)
	}
}

// Unified writes the difference from a (named from) to b (named to) as a
// unified diff with context lines of context around each change, and
// reports whether the texts differ (nothing is written when they do not).
// A last line without a newline is marked as diff(1) marks it.
func Unified(w io.Writer, a, b, from, to string, context int) (bool, error) {
	al, bl := Lines(a), Lines(b)
	runs := Diff(al, bl)
	changed := false
	for _, r := range runs {
		changed = changed || r.Kind != Equal
	}
	if !changed {
		return false, nil
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "--- %s\n+++ %s\n", from, to)
	for _, h := range hunks(runs, context) {
		fmt.Fprintf(bw, "@@ -%s +%s @@\n", span(h.A0, h.A1), span(h.B0, h.B1))
		for _, r := range h.runs {
			switch r.Kind {
			case Equal:
				writeLines(bw, ' ', al[r.A0:r.A1])
			case Delete:
				writeLines(bw, '-', al[r.A0:r.A1])
			case Insert:
				writeLines(bw, '+', bl[r.B0:r.B1])
			}
		}
	}
	return true, bw.Flush()
}

// writeLines writes lines with their mark; a bufio.Writer keeps its first
// error, which Flush reports.
func writeLines(w *bufio.Writer, mark byte, lines []string) {
	for _, l := range lines {
		_ = w.WriteByte(mark)
		_, _ = w.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			_, _ = w.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// span is a hunk's range as a unified diff writes it: "start,count"
// (from 1), "start" alone for one line, and for none the line before.
func span(from, to int) string {
	switch n := to - from; n {
	case 0:
		return fmt.Sprintf("%d,0", from)
	case 1:
		return fmt.Sprintf("%d", from+1)
	default:
		return fmt.Sprintf("%d,%d", from+1, n)
	}
}

// hunk is a group of changes with their context.
type hunk struct {
	A0, A1, B0, B1 int
	runs           []Run
}

// hunks groups a script's changes: each with up to context equal lines
// around it, two changes sharing a hunk when at most 2·context equal
// lines part them.
func hunks(runs []Run, context int) []hunk {
	var out []hunk
	for i := 0; i < len(runs); {
		if runs[i].Kind == Equal {
			i++
			continue
		}
		var h hunk
		if i > 0 {
			e := runs[i-1]
			c := min(context, e.A1-e.A0)
			h.runs = append(h.runs, Run{Kind: Equal, A0: e.A1 - c, A1: e.A1, B0: e.B1 - c, B1: e.B1})
		}
		for i < len(runs) {
			r := runs[i]
			if n := r.A1 - r.A0; r.Kind == Equal && (i == len(runs)-1 || n > 2*context) {
				// The hunk ends in this run; the next one's context may
				// start in it too.
				c := min(context, n)
				h.runs = append(h.runs, Run{Kind: Equal, A0: r.A0, A1: r.A0 + c, B0: r.B0, B1: r.B0 + c})
				i++
				break
			}
			h.runs = append(h.runs, r)
			i++
		}
		first, last := h.runs[0], h.runs[len(h.runs)-1]
		h.A0, h.A1, h.B0, h.B1 = first.A0, last.A1, first.B0, last.B1
		out = append(out, h)
	}
	return out
}
