package fault

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

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

// noteUnclassified records one plain error From turned into an internal
// fault: its message and the types of its chain, which lead to where it
// was made.
func noteUnclassified(err error) {
	unclassified.Lock()
	defer unclassified.Unlock()
	unclassified.n++
	if len(unclassified.msgs) < keepUnclassified {
		unclassified.msgs = append(unclassified.msgs, fmt.Sprintf("%s (%s)", err, chainTypes(err)))
	}
}

// chainTypes names the types of err's chain, outermost first.
func chainTypes(err error) string {
	var types []string
	for ; err != nil; err = errors.Unwrap(err) {
		types = append(types, fmt.Sprintf("%T", err))
	}
	return strings.Join(types, " > ")
}

// Unclassified returns how many plain errors From has met in this process
// (each a bug: an error made without a kind) and, for the first of them,
// the message and the types of the error's chain, for the tests of the front ends, which drive every
// request they offer and fail when one produced such an error.
func Unclassified() (int, []string) {
	unclassified.Lock()
	defer unclassified.Unlock()
	return unclassified.n, append([]string(nil), unclassified.msgs...)
}
