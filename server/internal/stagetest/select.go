package stagetest

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Filter chooses cases by name.
type Filter struct {
	// Args name stages ("01-scope"), cases ("01-scope/short-idea") or case
	// files and folders (a path, relative to Dir); none means every case.
	Args []string
	// Dir is the folder relative paths in Args start from.
	Dir string
	// Include and Exclude are glob patterns (path.Match) over the case id
	// STAGE/NAME; a pattern without a slash matches the name or the stage.
	// A case must match some Include (when there are any) and no Exclude.
	Include, Exclude []string
}

// caseHint says how cases are named.
const caseHint = "name cases as STAGE or STAGE/NAME, as the list of cases shows them"

// Select finds the cases f names, in stage order and then by name. An
// argument that names nothing is an error that lists what there is.
func Select(ws *workspace.Workspace, rep *check.Report, f Filter) ([]*report.TestCase, error) {
	var all []*report.TestCase
	for _, sr := range rep.Stages {
		for _, c := range sr.Cases {
			sel := &report.TestCase{Case: c, Stage: sr.Stage, Contract: sr.Contract}
			for _, fd := range rep.FindingsFor(c.File) {
				if fd.Severity == contract.Error {
					sel.Errors = append(sel.Errors, fd.Message)
				}
			}
			all = append(all, sel)
		}
	}
	for _, p := range append(append([]string{}, f.Include...), f.Exclude...) {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fault.InvalidRequest(fmt.Sprintf("the pattern %q is not a valid glob: %v", p, err), "write the pattern with *, ? and [...] only as globs use them")
		}
	}
	chosen := all
	if len(f.Args) > 0 {
		chosen = nil
		seen := map[string]bool{}
		for _, a := range f.Args {
			got, err := byArg(ws, all, a, f.Dir)
			if err != nil {
				return nil, err
			}
			for _, s := range got {
				if !seen[s.Case.ID] {
					seen[s.Case.ID] = true
					chosen = append(chosen, s)
				}
			}
		}
	}
	var out []*report.TestCase
	for _, s := range chosen {
		if (len(f.Include) == 0 || matchAny(f.Include, s.Case)) && !matchAny(f.Exclude, s.Case) {
			out = append(out, s)
		}
	}
	return out, nil
}

func byArg(ws *workspace.Workspace, all []*report.TestCase, arg, dir string) ([]*report.TestCase, error) {
	// A path to a case file or folder.
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if fi, err := os.Stat(p); err == nil {
		abs, _ := filepath.Abs(p)
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		for _, s := range all {
			if s.Case.File == abs || fi.IsDir() && s.Case.Folder && s.Case.Dir == abs {
				return []*report.TestCase{s}, nil
			}
		}
		if st := ws.StageOf(abs); st != nil && (abs == st.Dir || abs == filepath.Join(st.Dir, testcase.Dir)) {
			return ofStage(all, st.Name), nil
		}
	}
	stage, name, hasName := strings.Cut(strings.TrimSuffix(arg, "/"), "/")
	if st, err := ws.Stage(stage); err == nil {
		cases := ofStage(all, st.Name)
		if !hasName {
			if len(cases) == 0 {
				return nil, fault.NotFound(fmt.Sprintf("stage %s has no test cases; add one under %s/ (see `icm help test`)", st.Name, path.Join(st.Rel, testcase.Dir)),
					"name a stage that has test cases, or add one to this stage").In(st.Name)
			}
			return cases, nil
		}
		name = strings.TrimSuffix(name, ".md")
		for _, s := range cases {
			if s.Case.Name == name {
				return []*report.TestCase{s}, nil
			}
		}
		return nil, fault.NotFound(fmt.Sprintf("stage %s has no case %q; its cases: %s", st.Name, name, names(cases)), caseHint).In(st.Name)
	}
	return nil, fault.NotFound(fmt.Sprintf("%q names no stage, case or case file; cases: %s", arg, names(all)), caseHint)
}

func ofStage(all []*report.TestCase, stage string) []*report.TestCase {
	var out []*report.TestCase
	for _, s := range all {
		if s.Stage.Name == stage {
			out = append(out, s)
		}
	}
	return out
}

func names(ss []*report.TestCase) string {
	if len(ss) == 0 {
		return "none"
	}
	var n []string
	for _, s := range ss {
		n = append(n, s.Case.ID)
	}
	return strings.Join(n, ", ")
}

func matchAny(patterns []string, c *testcase.Case) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, c.ID); ok {
			return true
		}
		if !strings.Contains(p, "/") {
			if ok, _ := path.Match(p, c.Name); ok {
				return true
			}
			if ok, _ := path.Match(p, c.Stage); ok {
				return true
			}
		}
	}
	return false
}
