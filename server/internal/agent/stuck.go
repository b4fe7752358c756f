package agent

import (
	"encoding/json"
	"fmt"
)

// callKey identifies a call by its tool name and canonical arguments:
// encoding/json writes map keys sorted at every level, so two calls with
// the same arguments in any key order get the same key.
func callKey(name string, args map[string]any) string {
	if len(args) == 0 {
		return name + "\x00{}"
	}
	b, err := json.Marshal(args)
	if err != nil {
		// Arguments decoded from JSON always encode; this keeps the guard
		// working for a client that hands over something else.
		return name + "\x00" + fmt.Sprintf("%v", args)
	}
	return name + "\x00" + string(b)
}

// repeatGuard counts how many times in a row the same call was made,
// across the model's turns.
type repeatGuard struct {
	last  string
	count int
}

// add records a call and returns how many identical calls in a row end with it.
func (g *repeatGuard) add(key string) int {
	if g.count > 0 && key == g.last {
		g.count++
	} else {
		g.last, g.count = key, 1
	}
	return g.count
}
