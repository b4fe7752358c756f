package snapshot

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GoingItem is a For each item a run has started and not finished.
type GoingItem struct {
	Index int
	Title string
}

// Started records that item index of count began, titled title; done
// is how many of the count had finished then.
func (r *Running) Started(index, count, done int, title string) {
	r.Item, r.Items, r.Done, r.Title = index, count, done, title
	going := slices.DeleteFunc(slices.Clone(r.Going), func(g GoingItem) bool { return g.Index == index })
	going = append(going, GoingItem{Index: index, Title: title})
	slices.SortFunc(going, func(a, b GoingItem) int { return a.Index - b.Index })
	r.Going = going
}

// Ended records that item index of count finished (or was kept from an
// interrupted run), done of the count having finished.
func (r *Running) Ended(index, count, done int) {
	r.Items, r.Done = count, done
	r.Going = slices.DeleteFunc(slices.Clone(r.Going), func(g GoingItem) bool { return g.Index == index })
}

// Words are how far the run has come: count, the short words a row or
// the status bar shows ("2 of 4 items done", "item 3 of 5 again"), and
// text, the same with what runs now, for the progress and a hover ("2
// of 4 items done · running item 3: Setup", "item 3 of 5 again, the
// other 4 kept"). Both are "" for a run of a stage without For each.
func (r *Running) Words() (count, text string) {
	switch {
	case r.Only > 0 && r.Items > 0:
		count = fmt.Sprintf("item %d of %d again", r.Only, r.Items)
		return count, fmt.Sprintf("%s, the other %d kept", count, r.Items-1)
	case r.Only > 0:
		count = fmt.Sprintf("item %d again", r.Only)
		return count, count
	case r.Items == 0:
		return "", ""
	}
	count = fmt.Sprintf("%d of %d items done", r.Done, r.Items)
	switch len(r.Going) {
	case 0:
		return count, count
	case 1:
		g := r.Going[0]
		if g.Title == "" {
			return count, fmt.Sprintf("%s · running item %d", count, g.Index)
		}
		return count, fmt.Sprintf("%s · running item %d: %s", count, g.Index, g.Title)
	}
	n := make([]string, len(r.Going))
	for i, g := range r.Going {
		n[i] = strconv.Itoa(g.Index)
	}
	return count, fmt.Sprintf("%s · running items %s and %s", count, strings.Join(n[:len(n)-1], ", "), n[len(n)-1])
}

// Percent is how much of the run's items are done, for a progress bar:
// -1 when there is nothing to count.
func (r *Running) Percent() int {
	switch {
	case r.Only > 0 && r.Items > 0:
		if r.Done > 0 {
			return 100
		}
		return 0
	case r.Items > 0:
		return r.Done * 100 / r.Items
	}
	return -1
}
