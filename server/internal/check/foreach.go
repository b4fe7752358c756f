package check

// This file holds the For each source of a stage.

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/textnorm"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// forEach checks the For each source and counts its items.
func (c *checker) forEach(sr *StageReport) bool {
	st, fe := sr.Stage, sr.Contract.ForEach
	abs, err := c.ws.Resolve(st.Dir, fe.Path)
	if err != nil {
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Error, Code: contract.CodePathEscape,
			Message: escapeMessage(err)})
		return false
	}
	rel := c.ws.Rel(abs)
	i, produced := c.producer[rel]
	src, err := c.ws.Files.ReadFile(abs)
	if produced && i >= st.Index {
		// Certain to stop the stage only while the file is not there: a
		// version of it from an earlier run gives the stage its items.
		sev := contract.Error
		if err == nil {
			sev = contract.Warning
		}
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: sev, Code: contract.CodeForEachSource,
			Message: fmt.Sprintf("For each reads %s, which stage %s writes at or after this stage; loop over an earlier output", rel, c.r.Stages[i].Stage.Name)})
		return true
	}
	if workspace.Refused(err) {
		c.refused(st, fe.PathRange, rel, err)
		return true
	}
	if err != nil {
		if produced {
			c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Info, Code: contract.CodeInputNotYet,
				Message: fmt.Sprintf("For each source %s does not exist yet; stage %s produces it", rel, c.r.Stages[i].Stage.Name),
				Data:    map[string]string{"producer": c.r.Stages[i].Stage.Name}})
			return true
		}
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Error, Code: contract.CodeForEachSource,
			Message: fmt.Sprintf("For each source %s does not exist and no earlier stage produces it", rel),
			Data:    map[string]string{"path": rel}})
		return true
	}
	if lerr := markdown.Check(textnorm.Text(src)); lerr != nil {
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Error, Code: contract.CodeTooDeep,
			Message: fmt.Sprintf("For each source %s cannot be read: %v", rel, lerr)})
		return true
	}
	sr.Items = len(Items(src))
	if sr.Items == 0 {
		// Certain: a run refuses a loop over nothing.
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Error, Code: contract.CodeForEachSource,
			Message: fmt.Sprintf("%s has no `##` sections, so For each would run no %s", rel, fe.Item)})
	}
	return true
}
