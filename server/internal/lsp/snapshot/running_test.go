package snapshot

import "testing"

// The running record's words, step by step: what the progress, the
// Pipeline view, the lenses and the status bar all say of a run.
func TestRunningWords(t *testing.T) {
	var r Running
	step := func(what string, f func(), count, text string, pct int) {
		t.Helper()
		f()
		if c, tx := r.Words(); c != count || tx != text || r.Percent() != pct {
			t.Errorf("%s: %q, %q, %d%%; want %q, %q, %d%%", what, c, tx, r.Percent(), count, text, pct)
		}
	}
	step("a stage without For each", func() {}, "", "", -1)
	step("item 1 starts", func() { r.Started(1, 4, 0, "Setup") }, "0 of 4 items done", "0 of 4 items done · running item 1: Setup", 0)
	step("item 2 starts", func() { r.Started(2, 4, 0, "Models") }, "0 of 4 items done", "0 of 4 items done · running items 1 and 2", 0)
	step("item 1 ends", func() { r.Ended(1, 4, 1) }, "1 of 4 items done", "1 of 4 items done · running item 2: Models", 25)
	step("items 3 and 4 start", func() { r.Started(3, 4, 1, "Tools"); r.Started(4, 4, 1, "Review") }, "1 of 4 items done", "1 of 4 items done · running items 2, 3 and 4", 25)
	step("the rest end", func() { r.Ended(4, 4, 2); r.Ended(2, 4, 3); r.Ended(3, 4, 4) }, "4 of 4 items done", "4 of 4 items done", 100)

	one := Running{Only: 3}
	if c, tx := one.Words(); c != "item 3 again" || tx != c {
		t.Errorf("one item again, before it starts: %q, %q", c, tx)
	}
	one.Started(3, 5, 0, "Tools")
	if c, tx := one.Words(); c != "item 3 of 5 again" || tx != "item 3 of 5 again, the other 4 kept" || one.Percent() != 0 {
		t.Errorf("one item again: %q, %q, %d%%", c, tx, one.Percent())
	}
	one.Ended(3, 5, 1)
	if _, tx := one.Words(); tx != "item 3 of 5 again, the other 4 kept" || one.Percent() != 100 {
		t.Errorf("one item again, ended: %q, %d%%", tx, one.Percent())
	}
}

// A copy of the record read while the run goes on keeps its own items.
func TestRunningCopiesDoNotShare(t *testing.T) {
	var r Running
	r.Started(1, 2, 0, "a")
	r.Started(2, 2, 0, "b")
	snap := r
	r.Ended(1, 2, 1)
	if len(snap.Going) != 2 || snap.Going[0].Index != 1 || snap.Going[1].Index != 2 {
		t.Errorf("the copy changed: %+v", snap.Going)
	}
}
