package fault

import "sort"

// Kinds lists every kind, sorted, from the kinds table, for the tests.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Actions lists every action id, sorted, from the actions table, for the tests.
func Actions() []ActionID {
	out := make([]ActionID, 0, len(actions))
	for id := range actions {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
