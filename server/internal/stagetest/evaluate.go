package stagetest

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/critic"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// judge scores rubric lines; nil means rubric lines cannot be checked.
type judge interface {
	JudgeRubric(ctx context.Context, text, criterion, task string, threshold float64) (*critic.RubricVerdict, error)
}

// evaluation is what checking one job's outputs needs.
type evaluation struct {
	src  *workspace.Workspace // the real workspace (the case and its files)
	st   *workspace.Stage     // the stage in the real workspace
	cp   *workspace.Workspace // the test copy (the outputs)
	cst  *workspace.Stage     // the stage in the copy
	con  *contract.Contract
	c    *testcase.Case
	outs []verify.Output // the stage's outputs in the copy, sorted
	// primary is the output expectations read unless they name another.
	primary    verify.Output
	judge      judge
	codeBlocks verify.CodeChecker
	// stageVerify are the engine's results of the contract's Verify checks.
	stageVerify []state.VerifyResult
	// provenance is where the run's citable URLs came from (its record),
	// so a case's `sources` checks what its own Verify section would.
	provenance *verify.Provenance
	// permit allows the case's `run:` expectations (the job's).
	permit act.Permit
}

// checks runs every expectation of the case on the copy's outputs.
func (ev *evaluation) checks(ctx context.Context) []report.TestCheck {
	lines := caseLines(ev.src, ev.c)
	var out []report.TestCheck
	for _, e := range ev.c.Expect {
		ch := ev.one(ctx, e)
		ch.Source, ch.Line = report.SourceCase, lines(e.Range.Start)
		out = append(out, ch)
	}
	return out
}

// caseLines maps offsets in the case file to 1-based lines.
func caseLines(ws *workspace.Workspace, c *testcase.Case) func(int) int {
	src, err := ws.Files.ReadFile(c.File)
	if err != nil {
		return func(int) int { return 0 }
	}
	m := document.NewMapper(src)
	return func(off int) int {
		line, _, err := m.LineCol(off)
		if err != nil {
			return 0
		}
		return line
	}
}

func (ev *evaluation) one(ctx context.Context, e testcase.Expectation) report.TestCheck {
	ch := report.TestCheck{Expect: e.Label(), Kind: e.Kind}
	targets := ev.outs
	if e.Output != "" {
		o, ok := testcase.OutputFor(ev.con, e.Output)
		if !ok {
			ch.Message = fmt.Sprintf("%s writes no output %q", ev.st.Name, e.Output)
			return ch
		}
		rel := path.Join(ev.cst.Rel, o.Path)
		targets = []verify.Output{{Rel: rel, Abs: ev.cp.Abs(rel)}}
	} else if e.Check == nil {
		targets = []verify.Output{ev.primary}
	}
	if e.Check != nil {
		return ev.verifyCheck(ctx, ch, *e.Check, targets)
	}
	if e.Kind == testcase.KindVerify {
		return ev.verifyOutcome(ch, e.Value)
	}
	o := targets[0]
	ch.File = o.Rel
	data, err := workspace.ReadFileAt(o.Abs, 0)
	if err != nil {
		ch.Message = fmt.Sprintf("%s was not written", o.Rel)
		return ch
	}
	text := string(data)
	switch e.Kind {
	case testcase.KindContains:
		ch.OK = strings.Contains(text, e.Value)
		if !ch.OK {
			ch.Message = fmt.Sprintf("%s does not contain %q", o.Rel, e.Value)
		}
	case testcase.KindNotContains:
		if i := strings.Index(text, e.Value); i >= 0 {
			line := strings.Count(text[:i], "\n") + 1
			ch.Message = fmt.Sprintf("%s:%d contains %q", o.Rel, line, e.Value)
			ch.Findings = []state.VerifyFinding{{File: o.Rel, Line: line, Message: ch.Message}}
		} else {
			ch.OK = true
		}
	case testcase.KindMatches:
		re, err := regexp.Compile(e.Value)
		if err != nil {
			ch.Message = fmt.Sprintf("the pattern does not compile: %v", err)
			return ch
		}
		ch.OK = re.MatchString(text)
		if !ch.OK {
			ch.Message = fmt.Sprintf("nothing in %s matches %s", o.Rel, e.Value)
		}
	case testcase.KindRubric:
		ev.rubric(ctx, &ch, e, text)
	default:
		ch.Message = fmt.Sprintf("unknown expectation %q", e.Kind)
	}
	return ch
}

func (ev *evaluation) verifyCheck(ctx context.Context, ch report.TestCheck, c contract.Check, targets []verify.Output) report.TestCheck {
	if len(targets) == 1 {
		ch.File = targets[0].Rel
	}
	res := verify.Run(ctx, []contract.Check{c}, targets, verify.Env{
		StageDir: ev.cst.Dir, Workspace: ev.cp.Root, Stage: ev.st.Name,
		// Schema files of a case are read next to the case, then in the
		// stage folder (of the real workspace: cases are not copied).
		Resolve:    func(p string) (string, error) { return testcase.Resolve(ev.src, ev.st, ev.c, p) },
		Schemas:    ev.src,
		CodeBlocks: ev.codeBlocks, Provenance: ev.provenance, Permit: ev.permit, RunKind: act.CaseCheck,
	})
	r := res[0]
	ch.OK, ch.Findings = r.OK, r.Findings
	if !r.OK && len(r.Findings) > 0 {
		ch.Message = findingText(r.Findings[0])
		if n := len(r.Findings) - 1; n > 0 {
			ch.Message += fmt.Sprintf(" (and %d more)", n)
		}
	}
	return ch
}

// verifyOutcome checks the stage's own Verify checks came out as the case
// says: every one passed, or at least one failed.
func (ev *evaluation) verifyOutcome(ch report.TestCheck, want string) report.TestCheck {
	var failed []string
	for _, r := range ev.stageVerify {
		if !r.OK {
			failed = append(failed, r.Check)
		}
	}
	switch {
	case want == "fails" && len(ev.stageVerify) == 0:
		ch.Message = fmt.Sprintf("%s has no Verify checks, so none can fail", ev.st.Name)
	case want == "fails":
		ch.OK = len(failed) > 0
		if !ch.OK {
			ch.Message = "every Verify check of the stage passed; the case expects one to fail"
		}
	default:
		ch.OK = len(failed) == 0
		if !ch.OK {
			ch.Message = "the stage's Verify checks failed: " + strings.Join(failed, ", ")
		}
	}
	return ch
}

func (ev *evaluation) rubric(ctx context.Context, ch *report.TestCheck, e testcase.Expectation, text string) {
	ch.Threshold = e.Threshold
	if ev.judge == nil {
		ch.Message = "no model to judge the rubric with"
		return
	}
	v, err := ev.judge.JudgeRubric(ctx, text, e.Value, ev.con.Process, e.Threshold)
	if err != nil {
		ch.Message = "the rubric could not be judged: " + err.Error()
		return
	}
	score := v.Score
	ch.Score, ch.Reason, ch.OK = &score, v.Reason, v.Pass
	if !v.Pass {
		ch.Message = fmt.Sprintf("scored %d, below %g: %s", v.Score, v.Threshold, v.Reason)
	}
}

// stageChecks turns the engine's Verify results into checks; info when
// the case states their outcome itself.
func stageChecks(rs []state.VerifyResult, info bool) []report.TestCheck {
	var out []report.TestCheck
	for _, r := range rs {
		ch := report.TestCheck{Expect: "verify " + r.Check, Kind: strings.TrimSuffix(strings.Fields(r.Check + " x")[0], ":"), Source: report.SourceStage, OK: r.OK, Findings: r.Findings, Info: info}
		if !r.OK && len(r.Findings) > 0 {
			ch.Message = findingText(r.Findings[0])
		}
		out = append(out, ch)
	}
	return out
}

func findingText(f state.VerifyFinding) string {
	switch {
	case f.Line > 0:
		return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message)
	case f.File != "":
		return f.File + ": " + f.Message
	}
	return f.Message
}

// firstFailure names the first check that did not hold.
func firstFailure(cs []report.TestCheck) string {
	for _, c := range cs {
		if !c.OK && !c.Info {
			return c.Expect + ": " + c.Message
		}
	}
	return ""
}
