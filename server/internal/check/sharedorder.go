package check

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// sharedOrder notes a stage whose references, as its contract lists
// them, would part from the stage before it sooner than they do in the
// workspace's one order, which icm sends them in (assemble/order.go):
// the prompt is not the list as written, and the list as written would
// break the start the two prompts share and a model server reuses.
func (c *checker) sharedOrder(prev, st *workspace.Stage, prevK, k *contract.Contract) {
	if prev == nil || prevK == nil {
		return
	}
	before := c.r.Order.Sorted(c.ws, prev, prevK.Inputs, contract.LayerReference)
	sent := c.r.Order.Sorted(c.ws, st, k.Inputs, contract.LayerReference)
	var written []contract.Input
	for _, in := range k.Inputs {
		if in.Layer == contract.LayerReference {
			written = append(written, in)
		}
	}
	same := func(b []contract.Input) int {
		n := 0
		for n < len(before) && n < len(b) && assemble.SameReference(c.ws, prev, before[n], st, b[n]) {
			n++
		}
		return n
	}
	asWritten, asSent := same(written), same(sent)
	if asSent <= asWritten {
		return
	}
	in, first := written[asWritten], sent[asWritten]
	c.add(contract.Finding{File: st.Contract, Range: in.PathRange, Severity: contract.Info, Code: contract.CodeSharedOrder, Basis: contract.BasisMethod,
		Message: fmt.Sprintf("icm sends %s (a reference %d stages load) before %s, as %s does: the references several stages load go in one order for the whole workspace, so the prompts begin alike and the model server reuses what it computed; list them in that order to read the contract as it is sent",
			first.Path, c.r.Order.Loaders(c.ws, st, first), in.Path, prev.Name)})
}
