package session

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// Review is what a stage's gate shows, as lines a person reads or a
// script checks: the contract's Review Gate checklist (for the person to
// check), the Verify and rubric results of the last run, what icm warned
// of, the headings later stages read that the outputs lack, and what the
// outputs rest on. It runs nothing and changes nothing but the evidence
// cache.
func (rv Reviews) Review(ctx context.Context, stage string) (*report.Review, error) {
	s := rv.s
	st, err := s.ws.Stage(stage)
	if err != nil {
		return nil, fault.From(err)
	}
	src, err := s.ws.Files.ReadFile(st.Contract)
	if err != nil {
		return nil, fault.From(fmt.Errorf("unable to read %s: %w", st.ContractRel(), err))
	}
	c := contract.ParseWith(st.Contract, src, contract.Options{Vars: s.ws.Vars})
	ss, err := state.Derive(s.ws, st, c, state.ResolveSettings(s.ws.Config.Model, c.Model, s.opts.Settings.Model))
	if err != nil {
		return nil, fault.From(err)
	}
	if ss.Record == nil {
		return nil, fault.NotRun(st.Name)
	}
	rep := &report.Review{Stage: st.Name, State: state.FaceOf(ss, false, "").Label, Outputs: []string{}, Lines: []report.ReviewLine{}}
	for rel, h := range ss.Outputs {
		if h != state.Missing {
			rep.Outputs = append(rep.Outputs, rel)
		}
	}
	sort.Strings(rep.Outputs)
	for _, item := range contract.ReviewItems(c.ReviewGate()) {
		rep.Lines = append(rep.Lines, report.ReviewLine{Part: report.ReviewChecklist, Status: report.CheckSkip, Message: "check by hand: " + item})
	}
	rep.Lines = append(rep.Lines, verifyLines(ss.Record.Verify)...)
	rep.Lines = append(rep.Lines, rubricLines(ss.Record.Rubric)...)
	for _, w := range ss.Record.Warnings {
		rep.Lines = append(rep.Lines, report.ReviewLine{Part: report.ReviewWarning, Status: report.CheckWarn, File: w.File, Line: w.Line, Message: w.Message})
	}
	for _, l := range s.Check(nil).HeadingsLacked(st.Name) {
		rep.Lines = append(rep.Lines, report.ReviewLine{Part: report.ReviewWarning, Status: report.CheckWarn, File: l.Output,
			Message: fmt.Sprintf("lacks %q, which %s reads (%s:%d): add the heading, or %s gets the whole file", l.Heading, l.Reader, l.Contract, l.Line, l.Reader)})
	}
	res, err := rv.Evidence(ctx, st.Name)
	if err != nil {
		// Evidence informs: a stage whose evidence cannot be worked out
		// still shows its other lines.
		rep.Lines = append(rep.Lines, report.ReviewLine{Part: report.ReviewEvidence, Status: report.CheckSkip, Message: "evidence: " + fault.From(err).Msg})
		return rep, nil
	}
	rep.Evidence, rep.EvidenceLine = res, workflow.EvidenceLine(res)
	for _, r := range res {
		rep.Lines = append(rep.Lines, EvidenceLines(r)...)
	}
	return rep, nil
}

// verifyLines are a run's Verify results: a check that held is one line,
// a check that failed one line per finding.
func verifyLines(results []state.VerifyResult) []report.ReviewLine {
	var out []report.ReviewLine
	for _, v := range results {
		if v.OK || len(v.Findings) == 0 {
			status := report.CheckOK
			if !v.OK {
				status = report.CheckFail
			}
			out = append(out, report.ReviewLine{Part: report.ReviewVerify, Status: status, Check: v.Check, Message: "Verify: " + v.Check})
			continue
		}
		for _, f := range v.Findings {
			out = append(out, report.ReviewLine{Part: report.ReviewVerify, Status: report.CheckFail, Check: v.Check, File: f.File, Line: f.Line, Message: f.Message + " (Verify: " + v.Check + ")"})
		}
	}
	return out
}

// rubricLines are a run's rubric checks: a note is a warning, for the
// person to look at.
func rubricLines(checks []state.RubricCheck) []report.ReviewLine {
	var out []report.ReviewLine
	for _, c := range checks {
		l := report.ReviewLine{Part: report.ReviewRubric, Status: report.CheckOK, Check: c.Rubric, File: c.Output, Line: c.Line,
			Message: fmt.Sprintf("%s (%s)", c.Message, c.Rubric)}
		switch {
		case c.Note:
			l.Status = report.CheckWarn
		case !c.OK:
			l.Status = report.CheckFail
		default:
			what := c.Section
			if c.Item != "" {
				what += ": " + c.Item
			}
			l.Message = fmt.Sprintf("%s (%s)", what, c.Rubric)
		}
		out = append(out, l)
	}
	return out
}

// EvidenceLines are one output's evidence as gate lines: its summary (a
// pass when every unit is supported and nothing is marked), then each
// unsupported unit and each mark, at its line. Evidence never fails a
// gate: what rests on nothing is a warning.
func EvidenceLines(r *evidence.Result) []report.ReviewLine {
	sum := report.ReviewLine{Part: report.ReviewEvidence, Status: report.CheckOK, File: r.Path, Message: "evidence: " + r.Summary.Text}
	var out []report.ReviewLine
	for _, u := range r.Units {
		if u.Status == evidence.Unsupported {
			out = append(out, report.ReviewLine{Part: report.ReviewEvidence, Status: report.CheckWarn, File: r.Path, Line: u.Line,
				Message: fmt.Sprintf("unsupported (%.2f): %s", u.Score, firstWords(u.Text, 12))})
		}
		for _, m := range u.Marks {
			out = append(out, report.ReviewLine{Part: report.ReviewEvidence, Status: report.CheckWarn, File: r.Path, Line: m.Line, Message: MarkWords(m.Kind) + ": " + m.Text})
		}
	}
	if len(out) > 0 || r.Partial {
		sum.Status = report.CheckWarn
	}
	return append([]report.ReviewLine{sum}, out...)
}

// MarkWords names a kind of mark as the gate says it.
func MarkWords(k evidence.MarkKind) string {
	if k == evidence.MarkURL {
		return "cited, never read"
	}
	return "not in any source"
}

// firstWords is text's first n words, with an ellipsis when there are more.
func firstWords(text string, n int) string {
	ws := strings.Fields(text)
	if len(ws) <= n {
		return strings.Join(ws, " ")
	}
	return strings.Join(ws[:n], " ") + " …"
}
