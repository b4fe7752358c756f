package report

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/state"
)

// Gate is the summary a stage's review gate shows: what its run left for
// the person to read before approving, besides the output itself. It is
// made once (GateOf, by the engine when the stage ends and by the session
// for a stage awaiting review) and every face renders its Lines as they
// are: the CLI's gate lines (icm run, icm status), the Pipeline view's
// row, the run's notice and the output file's lens. A new fact for the
// gate is a field here and its case in Lines; no face changes.
type Gate struct {
	// Stage is the stage at the gate.
	Stage string `json:"stage"`
	// Declared counts the files the contract names; Missing are those the
	// model wrote no file for, as the contract names them.
	Declared int      `json:"declared,omitempty"`
	Missing  []string `json:"missing,omitempty"`
	// Undeclared are the files written into output/ of a contract that
	// names none, workspace-relative.
	Undeclared []string `json:"undeclared,omitempty"`
	// Proposed are the changes to files outside output/ that approving
	// applies.
	Proposed []Proposed `json:"proposed,omitempty"`
	// Lacked are the headings later stages read of the outputs that the
	// outputs, as they are now, lack.
	Lacked []state.LackedHeading `json:"lacked,omitempty"`
	// Warnings are what icm warned of in the contract when the stage ran.
	Warnings []state.Warning `json:"warnings,omitempty"`
	// Evidence is what the outputs rest on, in one line, as the run
	// record keeps it.
	Evidence *GateEvidence `json:"evidence,omitempty"`
}

// Check results a gate line reports, in the vocabulary's words
// (docs/vocabulary.md, "Check results").
const (
	CheckWarn = "warn"
	CheckFail = "fail"
)

// gateWords are the check results as a gate's lines say them.
var gateWords = map[string]string{"ok": "PASS", CheckWarn: "WARN", CheckFail: "FAIL", "skip": "SKIP"}

// GateWord is a check result as a gate's line says it ("WARN").
func GateWord(status string) string { return gateWords[status] }

// GateLine is one line of a gate summary, as every face shows it.
type GateLine struct {
	// Status is the check result (CheckWarn, CheckFail); Word says it as
	// the gate does ("WARN", "FAIL").
	Status string `json:"status"`
	Word   string `json:"word"`
	// Text is the line, one sentence; Items are its particulars, one a
	// line ("pipeline/01-x/CONTEXT.md:4: ...").
	Text  string   `json:"text"`
	Items []string `json:"items,omitempty"`
	// Action is what the line asks of the person, when it is a run
	// (state.ActionRun: run the stage again); "" otherwise.
	Action string `json:"action,omitempty"`
}

// GateOf is the gate summary of a stage from its run record (what it wrote
// against what its contract declares, what icm warned of when it ran) and
// the headings later stages read that its outputs lack; nil when there is
// nothing to say, or no record.
func GateOf(stage string, rec *state.Record, lacked []state.LackedHeading) *Gate {
	if rec == nil || rec.Status == state.RunManual {
		return nil
	}
	g := &Gate{Stage: stage, Lacked: lacked, Warnings: rec.Warnings}
	if rec.Evidence != "" {
		g.Evidence = &GateEvidence{Text: rec.Evidence, Clean: rec.EvidenceClean}
	}
	if w := rec.Writes; w != nil {
		g.Declared, g.Missing, g.Undeclared = w.Declared, w.Missing, w.Undeclared
		for _, p := range w.Proposals {
			g.Proposed = append(g.Proposed, Proposed{Target: p.Target, Kept: p.Kept, New: p.Base == state.Missing})
		}
	}
	if len(g.Lines(nil)) == 0 {
		return nil
	}
	return g
}

// Lines are the summary's lines, in the order a person acts on them: what
// is missing, what was written or is proposed beyond the contract's
// names, what later stages will miss, what icm warned of. place writes a
// workspace-relative path as the face shows it (nil: as it is).
func (g *Gate) Lines(place func(rel string) string) []GateLine {
	if g == nil {
		return nil
	}
	if place == nil {
		place = func(rel string) string { return rel }
	}
	var out []GateLine
	if len(g.Missing) > 0 {
		w := state.Writes{Declared: g.Declared, Missing: g.Missing}
		out = append(out, GateLine{Status: CheckFail, Text: w.MissingLine() + "; run the stage again for the rest", Action: state.ActionRun})
	}
	if len(g.Undeclared) > 0 {
		out = append(out, GateLine{Status: CheckWarn,
			Text:  "The contract names no output file; the model wrote " + human.Plural(len(g.Undeclared), "file") + " into output/",
			Items: placeAll(place, g.Undeclared)})
	}
	if len(g.Proposed) > 0 {
		var items []string
		for _, p := range g.Proposed {
			item := place(p.Target)
			if p.New {
				item += " (new)"
			}
			items = append(items, item)
		}
		out = append(out, GateLine{Status: CheckWarn,
			Text:  fmt.Sprintf("It proposes %s outside output/, applied only when you approve", human.Plural(len(g.Proposed), "change")),
			Items: items})
	}
	for _, l := range g.Lacked {
		at := place(l.Contract)
		if l.Line > 0 {
			at = fmt.Sprintf("%s:%d", at, l.Line)
		}
		out = append(out, GateLine{Status: CheckWarn,
			Text: fmt.Sprintf("%s lacks %q, which %s reads (%s): add the heading, or %s gets the whole file", place(l.Output), l.Heading, l.Reader, at, l.Reader)})
	}
	if n := len(g.Warnings); n > 0 {
		var items []string
		for _, w := range g.Warnings {
			at := place(w.File)
			if w.Line > 0 {
				at = fmt.Sprintf("%s:%d", at, w.Line)
			}
			items = append(items, at+": "+w.Message)
		}
		out = append(out, GateLine{Status: CheckWarn,
			Text:  fmt.Sprintf("icm read the contract with %s (the stage ran all the same)", human.Plural(n, "warning")),
			Items: items})
	}
	out = append(out, g.evidenceLine()...)
	for i := range out {
		out[i].Word = GateWord(out[i].Status)
	}
	return out
}

// Tally counts the summary's lines by their words, for a place with room
// for a few: "1 FAIL · 2 WARN"; "" when it has none.
func (g *Gate) Tally() string {
	n := map[string]int{}
	for _, l := range g.Lines(nil) {
		n[l.Word]++
	}
	var parts []string
	for _, w := range []string{"FAIL", "WARN"} {
		if n[w] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[w], w))
		}
	}
	return strings.Join(parts, " · ")
}

// GateText is a gate line on one line, as a lens or a notice says it:
// "WARN text: item; item".
func GateText(l GateLine) string {
	s := l.Word + " " + l.Text
	if len(l.Items) > 0 {
		s += ": " + strings.Join(l.Items, "; ")
	}
	return s
}

func placeAll(place func(string) string, rels []string) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = place(r)
	}
	return out
}
