package assemble

import (
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// One order for shared files.
//
// A model server reuses the computed start of a prompt that begins as an
// earlier one did (docs/prefill.md). Every stage's prompt begins with the
// workspace's identity and routing, then its references (layer 3, in the
// system text); when two stages load the same references in another
// order, their prompts part where the first differs. So the references
// several stages load come first, in one order for the whole workspace:
// the ones the most stages load first, then by the first stage that
// loads them and where it lists them; a stage's other references follow
// in its contract's order. Working material (layer 4) comes after the
// stage's own instructions, where prompts of two stages have parted
// already: it keeps the contract's order. The author's own text (a
// contract sent whole, its Inputs section as written) is never
// reordered: only the blocks icm adds.

// Order is the workspace-wide order of the references several stages
// preload. The zero value orders nothing.
type Order struct {
	rank map[orderKey]int
	// loaders counts the stages that load each shared file.
	loaders map[orderKey]int
}

// orderKey is a file as the order knows it: its layer, its path
// relative to the workspace as the contract's path reads from the stage
// folder (lexically: files not yet written have a place too), and the
// part of it the input loads.
type orderKey struct {
	layer int
	path  string
	// scope is the part of the file the input names, as written: the
	// same file under another scope is other text.
	scope string
}

// StageContract is one stage with its parsed contract, for SharedOrder.
type StageContract struct {
	Stage    *workspace.Stage
	Contract *contract.Contract
}

// SharedOrder ranks the references that two or more stages load (see
// above).
func SharedOrder(ws *workspace.Workspace, stages []StageContract) *Order {
	type seen struct {
		count, stage, pos int
	}
	all := map[orderKey]*seen{}
	for si, sc := range stages {
		if sc.Contract == nil {
			continue
		}
		once := map[orderKey]bool{}
		for pos, in := range sc.Contract.Inputs {
			k, ok := keyOf(ws, sc.Stage, in)
			if !ok || once[k] {
				continue
			}
			once[k] = true
			if s := all[k]; s != nil {
				s.count++
				continue
			}
			all[k] = &seen{count: 1, stage: si, pos: pos}
		}
	}
	var shared []orderKey
	for k, s := range all {
		if s.count > 1 {
			shared = append(shared, k)
		}
	}
	sort.Slice(shared, func(i, j int) bool {
		a, b := all[shared[i]], all[shared[j]]
		switch {
		case a.count != b.count:
			return a.count > b.count
		case a.stage != b.stage:
			return a.stage < b.stage
		case a.pos != b.pos:
			return a.pos < b.pos
		}
		return shared[i].path < shared[j].path
	})
	o := &Order{rank: map[orderKey]int{}, loaders: map[orderKey]int{}}
	for i, k := range shared {
		o.rank[k] = i
		o.loaders[k] = all[k].count
	}
	return o
}

// orderOf is the order of ws as its contracts are on disk, for a caller
// that passed none.
func orderOf(ws *workspace.Workspace) *Order {
	var stages []StageContract
	for _, st := range ws.Stages {
		if st.Escape != nil {
			continue
		}
		src, err := ws.Files.ReadFile(st.Contract)
		if err != nil {
			continue
		}
		stages = append(stages, StageContract{Stage: st, Contract: contract.ParseWith(st.Contract, src, contract.Options{Vars: ws.Vars})})
	}
	return SharedOrder(ws, stages)
}

// keyOf is an input's place in the order: false for one with no single
// path (a pattern, a placeholder, a variable without a value, a row that
// names no file).
func keyOf(ws *workspace.Workspace, st *workspace.Stage, in contract.Input) (orderKey, bool) {
	if in.NonFile || in.Path == "" || in.Glob || in.Templated || len(in.Unset) > 0 || in.Layer != contract.LayerReference {
		return orderKey{}, false
	}
	p := filepath.ToSlash(in.Path)
	if !strings.HasPrefix(p, "/") {
		p = path.Clean(path.Join(filepath.ToSlash(ws.Rel(st.Dir)), p))
	}
	k := orderKey{layer: in.Layer, path: p}
	if in.Scope != nil {
		k.scope = strings.TrimSpace(in.Scope.Raw)
	}
	return k, true
}

// Sorted returns the stage's inputs of one layer in the order icm loads
// them: the shared references by their rank, then the others as the
// contract lists them (working material keeps the contract's order).
func (o *Order) Sorted(ws *workspace.Workspace, st *workspace.Stage, inputs []contract.Input, layer int) []contract.Input {
	var shared, own []contract.Input
	rank := map[int]int{}
	for _, in := range inputs {
		if in.Layer != layer {
			continue
		}
		k, ok := keyOf(ws, st, in)
		r, isShared := 0, false
		if ok && o != nil {
			r, isShared = o.rank[k]
		}
		if isShared {
			rank[len(shared)] = r
			shared = append(shared, in)
		} else {
			own = append(own, in)
		}
	}
	idx := make([]int, len(shared))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return rank[idx[i]] < rank[idx[j]] })
	out := make([]contract.Input, 0, len(shared)+len(own))
	for _, i := range idx {
		out = append(out, shared[i])
	}
	return append(out, own...)
}

// Loaders is how many stages load the input as a reference (0 when it
// is not one of the shared references).
func (o *Order) Loaders(ws *workspace.Workspace, st *workspace.Stage, in contract.Input) int {
	k, ok := keyOf(ws, st, in)
	if !ok || o == nil {
		return 0
	}
	return o.loaders[k]
}

// SameReference reports whether two stages' reference inputs name the
// same file, as the order reads their paths.
func SameReference(ws *workspace.Workspace, a *workspace.Stage, ina contract.Input, b *workspace.Stage, inb contract.Input) bool {
	ka, okA := keyOf(ws, a, ina)
	kb, okB := keyOf(ws, b, inb)
	return okA && okB && ka == kb
}
