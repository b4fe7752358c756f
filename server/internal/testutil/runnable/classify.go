package runnable

import (
	"errors"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/fault"
)

// Outcome is how one stage went.
type Outcome string

// The outcomes, in the order the totals list them.
const (
	// Ran: the stage reached its gate and was approved.
	Ran Outcome = "ran"
	// Manual: icm stopped for the person without calling the model or
	// writing a file.
	Manual Outcome = "manual"
	// Adopted: the stage's outputs were committed with the workspace, and
	// the measurement kept them as approved (icm run --adopt), as a
	// person keeping the author's results does; icm ran nothing.
	Adopted Outcome = "adopted"
	// Refused: icm declined the run before any model call, or the
	// approval.
	Refused Outcome = "refused"
	// Failed: the model was called and the run did not reach its gate.
	Failed Outcome = "failed"
	// Skipped: an input is produced by an earlier stage that did not run.
	Skipped Outcome = "skipped"
)

// Outcomes lists every outcome in report order.
var Outcomes = []Outcome{Ran, Manual, Adopted, Refused, Failed, Skipped}

// Stage is the result of one stage.
type Stage struct {
	Name    string
	Outcome Outcome
	// Step is the command that ended it ("run" or "approve"), for the
	// outcomes other than ran and manual.
	Step string
	// Kind is the fault's kind; Message the first line of its message,
	// paths relative to the repository.
	Kind, Message string
	// Reasons are the refusal's reasons (see reasons): the keys the
	// documented list of refusals is written in.
	Reasons []string
	// Upstream is the earlier stage a skipped stage waits on.
	Upstream string
	// ModelCalls counts the chat calls of its run.
	ModelCalls int
}

// kindOf is the kind of fault an error is, as the CLI renders it.
func kindOf(err error) string { return string(fault.KindOf(err)) }

// missingUpstream names the stage that produces an input the run found
// missing, "" when the error is not that.
func missingUpstream(err error) string {
	var me *assemble.MissingError
	if errors.As(err, &me) {
		return me.ProducedBy
	}
	return ""
}

// reasons are a refusal's keys: for a contract with errors, the codes of
// its error findings ("contract-invalid: output-in-other-stage"); for
// anything else (and a contract refused without a finding), the kind and
// the shape of the message's first clause, its names and paths left out
// ("edited-output: … is already there and no run of icm wrote it").
func reasons(err error, codes []string) []string {
	kind := kindOf(err)
	if kind == string(fault.KindContractInvalid) && len(codes) > 0 {
		seen := map[string]bool{}
		var out []string
		for _, c := range codes {
			if !seen[c] {
				seen[c] = true
				out = append(out, kind+": "+c)
			}
		}
		sort.Strings(out)
		return out
	}
	return []string{kind + ": " + shape(err.Error())}
}

var (
	stagePrefix = regexp.MustCompile(`^stage \S+( \([^)]*\))?( cannot run)?:? `)
	// A name: a path, a quoted or backticked word, a number.
	nameRe   = regexp.MustCompile("`[^`]*`|\"[^\"]*\"|'[^']*'|\\S*[/.]\\S*[A-Za-z0-9_\\])}]|\\b\\d+\\b")
	ellipses = regexp.MustCompile(`…(\s*(,|and|or)?\s*…)+`)
)

// shape is the first clause of a message (up to a semicolon or a colon)
// with the stage, names, paths and numbers left out, so one reason reads the same in every workspace.
func shape(msg string) string {
	s := firstLine(msg)
	s = stagePrefix.ReplaceAllString(s, "")
	for _, sep := range []string{"; ", ": "} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	s = nameRe.ReplaceAllString(s, "…")
	s = ellipses.ReplaceAllString(s, "…")
	return strings.TrimSpace(s)
}

// cell is how the table shows the outcome.
func (s Stage) cell() string {
	switch s.Outcome {
	case Ran, Manual, Adopted:
		return string(s.Outcome)
	case Skipped:
		return "skipped: " + s.Upstream + " did not produce an input"
	}
	return string(s.Outcome) + " (" + s.Step + ", " + s.Kind + "): " + s.Message
}
