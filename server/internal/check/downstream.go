package check

import (
	"sort"

	"github.com/icm-tool/icm/server/internal/state"
)

// Downstream maps each stage to the stages that read its outputs, directly
// or through other stages, in pipeline order: the ones a new output of it
// would make stale.
func Downstream(r *Report) map[string][]string {
	direct := map[string]map[string]bool{}
	for _, sr := range r.Stages {
		if sr.Contract == nil {
			continue
		}
		for _, rel := range state.Reads(r.Workspace, sr.Stage, sr.Contract) {
			if from := r.ProducedBy[rel]; from != "" && from != sr.Stage.Name {
				if direct[from] == nil {
					direct[from] = map[string]bool{}
				}
				direct[from][sr.Stage.Name] = true
			}
		}
	}
	order := map[string]int{}
	for i, sr := range r.Stages {
		order[sr.Stage.Name] = i
	}
	out := map[string][]string{}
	for _, sr := range r.Stages {
		seen := map[string]bool{}
		stack := []string{sr.Stage.Name}
		for len(stack) > 0 {
			cur := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for next := range direct[cur] {
				if !seen[next] {
					seen[next] = true
					stack = append(stack, next)
				}
			}
		}
		list := make([]string, 0, len(seen))
		for name := range seen {
			list = append(list, name)
		}
		sort.Slice(list, func(i, j int) bool { return order[list[i]] < order[list[j]] })
		out[sr.Stage.Name] = list
	}
	return out
}
