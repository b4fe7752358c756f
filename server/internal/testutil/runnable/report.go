package runnable

import (
	"fmt"
	"sort"
	"strings"
)

// Report is a measurement: every workspace's stages.
type Report struct {
	Workspaces []Workspace
}

// Workspace is one workspace's stages, in order.
type Workspace struct {
	// Name is the repository's name and the workspace's folder in it.
	Name   string
	Stages []Stage
}

// Count is how many of a workspace's stages had each outcome.
func (w Workspace) Count() map[Outcome]int {
	n := map[Outcome]int{}
	for _, s := range w.Stages {
		n[s.Outcome]++
	}
	return n
}

// Totals counts the outcomes over every workspace.
func (r *Report) Totals() map[Outcome]int {
	n := map[Outcome]int{}
	for _, w := range r.Workspaces {
		for o, c := range w.Count() {
			n[o] += c
		}
	}
	return n
}

// Stages is the number of stages measured.
func (r *Report) Stages() int {
	n := 0
	for _, w := range r.Workspaces {
		n += len(w.Stages)
	}
	return n
}

// Reasons counts the refused stages by each of their reasons.
func (r *Report) Reasons() map[string]int {
	n := map[string]int{}
	for _, w := range r.Workspaces {
		for _, s := range w.Stages {
			for _, why := range s.Reasons {
				n[why]++
			}
		}
	}
	return n
}

// Markdown is the report as a document: a table per workspace (each
// stage's outcome, and for the rest the command, the fault's kind, the
// refusal's reasons and the message), then the totals and the refusals
// counted by reason.
func (r *Report) Markdown() string {
	var b strings.Builder
	for _, w := range r.Workspaces {
		n := w.Count()
		fmt.Fprintf(&b, "## %s: %d of %d stages run\n\n", w.Name, n[Ran], len(w.Stages))
		b.WriteString("| stage | outcome | reasons | message |\n|---|---|---|---|\n")
		for _, s := range w.Stages {
			out := string(s.Outcome)
			switch s.Outcome {
			case Refused, Failed:
				out += " (" + s.Step + ", " + s.Kind + ")"
			case Skipped:
				out += " (" + s.Upstream + " did not produce an input)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s.Name, out, cellText(strings.Join(s.Reasons, "; ")), cellText(s.Message))
		}
		b.WriteString("\n")
	}
	t := r.Totals()
	fmt.Fprintf(&b, "## Totals: %d of %d stages run in %d workspaces\n\n| outcome | stages |\n|---|---|\n", t[Ran], r.Stages(), len(r.Workspaces))
	for _, o := range Outcomes {
		fmt.Fprintf(&b, "| %s | %d |\n", o, t[o])
	}
	reasons := r.Reasons()
	if len(reasons) > 0 {
		b.WriteString("\n## Refusals by reason\n\n| reason | stages |\n|---|---|\n")
		keys := make([]string, 0, len(reasons))
		for k := range reasons {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if reasons[keys[i]] != reasons[keys[j]] {
				return reasons[keys[i]] > reasons[keys[j]]
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			fmt.Fprintf(&b, "| %s | %d |\n", cellText(k), reasons[k])
		}
	}
	return b.String()
}

// cellText keeps a text inside one table cell.
func cellText(s string) string {
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
