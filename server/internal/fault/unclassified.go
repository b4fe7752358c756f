package fault

import "sync"

// unclassified keeps the messages of the plain errors From met, the
// process's one record of them: a front end's tests fail when any of
// their requests produced one (Unclassified). It is the package's only
// state, kept because a bug must be noticed where the fault is made,
// however many layers the error passed on its way.
var unclassified struct {
	sync.Mutex
	n    int
	msgs []string
}

// keepUnclassified is how many messages the record holds; the count goes on.
const keepUnclassified = 20

// noteUnclassified records one plain error From turned into an internal fault.
func noteUnclassified(msg string) {
	unclassified.Lock()
	defer unclassified.Unlock()
	unclassified.n++
	if len(unclassified.msgs) < keepUnclassified {
		unclassified.msgs = append(unclassified.msgs, msg)
	}
}

// Unclassified returns how many plain errors From has met in this process
// (each a bug: an error made without a kind) and the messages of the
// first of them, for the tests of the front ends, which drive every
// request they offer and fail when one produced such an error.
func Unclassified() (int, []string) {
	unclassified.Lock()
	defer unclassified.Unlock()
	return unclassified.n, append([]string(nil), unclassified.msgs...)
}
