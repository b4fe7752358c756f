package fault

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Unclassified is the process's record of the plain errors From met, each
// a bug in icm (an error made without saying what it is): the front ends'
// tests fail when any of their requests produced one
// (faulttest.NoneInternal). It is the package's only state, kept because a
// bug must be noticed where the fault is made, however many layers the
// error passed on its way; it is data, read by the tests, so that nothing
// of icm's binary exists for them alone.
var Unclassified struct {
	// N counts them.
	N atomic.Int64
	// Seen holds the first few (keepUnclassified), each its message and
	// the types of its chain, which lead to where it was made.
	Seen sync.Map
}

// keepUnclassified is how many errors Unclassified.Seen holds; N goes on.
const keepUnclassified = 20

// noteUnclassified records one plain error From turned into an internal
// fault.
func noteUnclassified(err error) {
	if Unclassified.N.Add(1) <= keepUnclassified {
		Unclassified.Seen.Store(fmt.Sprintf("%s (%s)", err, chainTypes(err)), true)
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
