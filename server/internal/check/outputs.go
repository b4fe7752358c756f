package check

// This file holds the outputs the stages declare: which stage writes a
// path, outputs named outside output/.

import (
	"fmt"
	"path"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// indexOutputs records which stage declares each output, and reports two
// stages writing the same file.
func (c *checker) indexOutputs() {
	for i, sr := range c.r.Stages {
		if sr.Contract == nil {
			continue
		}
		for _, o := range sr.Contract.Outputs {
			rel := path.Join(sr.Stage.Rel, o.Path)
			if o.Templated {
				// Named once its placeholder is filled in: no conflict can
				// be told yet, but the next stages learn who writes it.
				if _, ok := c.r.ProducedBy[rel]; !ok {
					c.r.ProducedBy[rel] = sr.Stage.Name
				}
				continue
			}
			if j, dup := c.producer[rel]; dup {
				other := c.r.Stages[j].Stage.Name
				c.add(contract.Finding{File: sr.Stage.Contract, Range: o.PathRange, Severity: contract.Error, Code: contract.CodeOutputConflict,
					Message: fmt.Sprintf("%s is also written by stage %s; two stages cannot write one file", rel, other)})
				continue
			}
			c.producer[rel] = i
			c.r.ProducedBy[rel] = sr.Stage.Name
		}
		for _, o := range sr.Contract.ExternalOutputs {
			for _, rel := range c.externalRels(sr.Stage, o.Path) {
				if _, ok := c.external[rel]; !ok {
					c.external[rel] = i
				}
				if _, ok := c.r.ProducedBy[rel]; !ok {
					c.r.ProducedBy[rel] = sr.Stage.Name
				}
			}
		}
	}
}

// externalRels are the workspace-relative paths an output written outside
// output/ may mean: from the stage folder, and (for a path that does not
// climb) from the workspace root.
func (c *checker) externalRels(st *workspace.Stage, p string) []string {
	var out []string
	if rel, ok := relInside(path.Join(st.Rel, p)); ok {
		out = append(out, rel)
	}
	if !strings.HasPrefix(path.Clean(p), "../") && !strings.HasPrefix(p, "/") {
		if rel, ok := relInside(p); ok && !containsString(out, rel) {
			out = append(out, rel)
		}
	}
	if strings.HasPrefix(p, "/") {
		if rel, ok := relInside(strings.TrimPrefix(p, "/")); ok {
			out = append(out, rel)
		}
	}
	return out
}

// relInside cleans a workspace-relative path and says whether it stays
// inside.
func relInside(p string) (string, bool) {
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return "", false
	}
	return c, true
}

// producerIndex returns the stage declaring rel as an output (inside its
// output/ or outside it), and whether there is one.
func (c *checker) producerIndex(rel string) (int, bool) {
	if i, ok := c.producer[rel]; ok {
		return i, true
	}
	i, ok := c.external[rel]
	return i, ok
}

// isProduced reports whether a stage declares rel (or a folder holding
// it) as an output.
func (c *checker) isProduced(rel string) bool {
	if _, ok := assemble.Producer(c.producer, rel); ok {
		return true
	}
	_, ok := c.external[rel]
	return ok
}

// externalOutputs says of each output a stage names outside its output/
// folder that a run keeps it as a proposed change, applied at approval;
// one inside another stage's output/ is an error: two stages' work would
// mix.
func (c *checker) externalOutputs(st *workspace.Stage, k *contract.Contract) {
	for _, o := range k.ExternalOutputs {
		rels := c.externalRels(st, o.Path)
		if owner := c.outputFolderOf(rels); owner != nil && owner != st {
			c.add(contract.Finding{File: st.Contract, Range: o.PathRange, Severity: contract.Error, Code: contract.CodeOutputLocation, Basis: contract.BasisStages,
				Message: fmt.Sprintf("%s is in the output/ folder of stage %s; a stage writes only into its own output/ folder", rels[0], owner.Name)})
			continue
		}
		c.add(contract.Finding{File: st.Contract, Range: o.PathRange, Severity: contract.Info, Code: contract.CodeOutputLocation, Basis: contract.BasisState,
			Message: fmt.Sprintf("%s is outside the stage's output/ folder: what the model writes there is kept as a proposed change, applied only when the stage is approved", o.Path)})
		if names := contract.SetupVarNames(o.Path); len(names) > 0 {
			c.unsetVars(st, o.PathRange, o.Path, names)
		}
	}
}

// outputFolderOf returns the stage whose output/ folder holds the first
// of rels that lies in one, or nil.
func (c *checker) outputFolderOf(rels []string) *workspace.Stage {
	for _, rel := range rels {
		for _, sr := range c.r.Stages {
			out := path.Join(sr.Stage.Rel, workspace.OutputDir)
			if rel == out || strings.HasPrefix(rel, out+"/") {
				return sr.Stage
			}
		}
	}
	return nil
}

// producerOf names the earlier stage that declares rel as an output (or a
// folder holding it), or whose output folder rel is, or "".
func (c *checker) producerOf(st *workspace.Stage, rel string) string {
	if i, ok := assemble.Producer(c.producer, rel); ok && i < st.Index {
		return c.r.Stages[i].Stage.Name
	}
	if i, ok := c.external[rel]; ok && i < st.Index {
		return c.r.Stages[i].Stage.Name
	}
	if other := c.ws.StageOf(c.ws.Abs(rel)); other != nil && other.Index < st.Index && rel == path.Join(other.Rel, workspace.OutputDir) {
		return other.Name
	}
	return ""
}

// globProducer names the earlier stage declaring an output the glob rel
// matches, or whose placeholders line up with it, or "".
func (c *checker) globProducer(st *workspace.Stage, rel string) string {
	name := assemble.GlobProducer(c.r.ProducedBy, rel)
	if sr := c.r.Stage(name); sr != nil && sr.Stage.Index < st.Index {
		return name
	}
	return ""
}

// patternProducer names the earlier stage declaring an output whose
// placeholders line up with the pattern rel, or "".
func (c *checker) patternProducer(st *workspace.Stage, rel string) string {
	name := assemble.PatternProducer(c.r.ProducedBy, rel)
	if sr := c.r.Stage(name); sr != nil && sr.Stage.Index < st.Index {
		return name
	}
	return ""
}
