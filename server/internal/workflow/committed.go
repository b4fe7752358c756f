package workflow

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
)

// committed answers, before a run's first stage, what to do with outputs
// committed with the workspace (there before any run of icm, approved by
// nobody), once for all of them. The question is asked when the run
// meets them (the stage it is for, or the next one a run would stop at,
// holds some): without an answer the run refuses, asking it, before
// anything is written or traced. state.KeepCommitted approves them as
// they are, recorded as adopted; state.RegenerateCommitted records that
// their stages run again in their turn. stop is set when the run has
// nothing more to do: the stage it is for keeps outputs that were adopted.
func (e *Engine) committed(sum *report.Summary) (stop bool, err error) {
	p, err := e.pipeline()
	if err != nil {
		return false, err
	}
	if e.opts.Committed == "" && !e.meets(p) {
		return false, nil
	}
	var names, what []string
	file := ""
	for i, s := range p.Stages {
		if !s.Committed {
			continue
		}
		files := present(s.Outputs)
		names = append(names, s.Stage)
		what = append(what, s.Stage+": "+strings.Join(clipNames(files, 3), ", "))
		if file == "" && len(files) > 0 {
			file = e.ws.Abs(files[0])
		}
		switch e.opts.Committed {
		case state.KeepCommitted:
			a := &state.Approval{Stage: s.Stage, ApprovedAt: e.opts.Now(), Outputs: s.Outputs, By: "user", Adopted: true}
			if err := state.WriteApproval(e.ws.Disk, e.ws.Stages[i].Dir, a); err != nil {
				return false, err
			}
		case state.RegenerateCommitted:
			r := &state.Regenerate{Stage: s.Stage, At: e.opts.Now(), By: "user", Outputs: s.Outputs}
			if err := state.WriteRegenerate(e.ws.Disk, e.ws.Stages[i].Dir, r); err != nil {
				return false, err
			}
		}
	}
	switch {
	case len(names) > 0 && e.opts.Committed == state.KeepCommitted:
		sum.Adopted = names
	case len(names) > 0 && e.opts.Committed == state.RegenerateCommitted:
		sum.Regenerating = names
	case len(names) > 0:
		return false, fault.Committed(e.opts.Stage, what, file)
	}
	if e.opts.Stage == "" || e.opts.Committed != state.KeepCommitted {
		return false, nil
	}
	// Keeping the author's results, the run for one stage leaves a stage
	// whose adopted outputs nothing has replaced as it is.
	if p, err = e.pipeline(); err != nil {
		return false, err
	}
	st, err := e.ws.Stage(e.opts.Stage)
	if err != nil {
		return false, err
	}
	s := stateOf(p, st.Name)
	if s != nil && s.Record == nil && s.Status == state.Approved && s.Approval != nil && s.Approval.Adopted {
		if !slices.Contains(sum.Adopted, s.Stage) {
			sum.Adopted = append(sum.Adopted, s.Stage)
		}
		sum.Next = p.Next
		return true, nil
	}
	return false, nil
}

// present lists the outputs that are there, sorted.
func present(outs state.Hashes) []string {
	var out []string
	for rel, h := range outs {
		if h != state.Missing {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// clipNames keeps the first n names and says how many more there are.
func clipNames(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(names[:n:n], fmt.Sprintf("and %d more", len(names)-n))
}

// meets reports whether the run reaches outputs committed with the
// workspace: the stage it is for holds some, or, for the next stage that
// needs it, the first stage not approved does (a run would stop there),
// or, going through every stage, any does.
func (e *Engine) meets(p *state.PipelineState) bool {
	if e.opts.Stage != "" {
		st, err := e.ws.Stage(e.opts.Stage)
		if err != nil {
			return false
		}
		s := stateOf(p, st.Name)
		return s != nil && s.Committed
	}
	for _, s := range p.Stages {
		if s.Committed {
			return true
		}
		if s.Status != state.Approved && !e.opts.All {
			return false
		}
	}
	return false
}
