package testcase

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Resolve finds a file a case names (a stand-in's content, a json-schema
// file): next to the case first, then in the stage folder, the way the
// contract's own paths are read. It never returns a path outside the
// workspace. When the file exists in neither place, the path next to the
// case is returned with the error.
func Resolve(ws *workspace.Workspace, st *workspace.Stage, c *Case, p string) (string, error) {
	abs, err := ws.Resolve(c.Dir, p)
	if err != nil {
		return "", err
	}
	if _, serr := ws.Files.Stat(abs); serr == nil {
		return abs, nil
	}
	if alt, err := ws.Resolve(st.Dir, p); err == nil {
		if _, serr := ws.Files.Stat(alt); serr == nil {
			return alt, nil
		}
	}
	return abs, fmt.Errorf("%s does not exist (looked next to the case and in %s)", p, st.Rel)
}

// Target resolves a stand-in's target the way the contract's inputs are
// resolved: relative to the stage folder.
func Target(ws *workspace.Workspace, st *workspace.Stage, in StandIn) (string, error) {
	return ws.Resolve(st.Dir, in.Target)
}

// Read returns a stand-in's content.
func Read(ws *workspace.Workspace, st *workspace.Stage, c *Case, in StandIn) ([]byte, error) {
	if in.IsInline {
		return []byte(in.Inline), nil
	}
	abs, err := Resolve(ws, st, c, in.From)
	if err != nil {
		return nil, err
	}
	return ws.Files.ReadFile(abs)
}

// Reads lists what the stage reads, by absolute path: its inputs and its
// For each source (non-file and templated rows left out).
func Reads(ws *workspace.Workspace, st *workspace.Stage, con *contract.Contract) map[string]contract.Input {
	out := map[string]contract.Input{}
	for _, in := range con.Inputs {
		if in.NonFile || in.Templated || in.Path == "" {
			continue
		}
		if abs, err := ws.Resolve(st.Dir, in.Path); err == nil {
			out[abs] = in
		}
	}
	if fe := con.ForEach; fe != nil && fe.Path != "" {
		if abs, err := ws.Resolve(st.Dir, fe.Path); err == nil {
			if _, ok := out[abs]; !ok {
				out[abs] = contract.Input{Path: fe.Path, Layer: contract.LayerWorking}
			}
		}
	}
	return out
}

// OutputFor finds the declared output an expectation's `### FILE` names:
// by its path relative to the stage folder ("output/verdict.json") or its
// file name ("verdict.json").
func OutputFor(con *contract.Contract, name string) (contract.Output, bool) {
	clean := path.Clean(strings.TrimPrefix(name, "./"))
	for _, o := range con.Outputs {
		if o.Templated || o.Dir {
			continue
		}
		if path.Clean(o.Path) == clean || path.Base(o.Path) == clean {
			return o, true
		}
	}
	return contract.Output{}, false
}

// Check adds what needs the workspace and the stage's contract (nil when
// the stage has none) to a case's own findings: stand-ins that do not
// exist or replace nothing the stage reads, working inputs with no
// stand-in that are not there, outputs the stage does not write, schema
// files that are missing or that a run could not compile.
func Check(ws *workspace.Workspace, st *workspace.Stage, con *contract.Contract, c *Case) []contract.Finding {
	var out []contract.Finding
	add := func(r document.Range, sev contract.Severity, code, msg string) {
		out = append(out, contract.Finding{File: c.File, Range: r, Severity: sev, Code: code, Message: msg})
	}
	if con == nil {
		add(c.TitleRange, contract.Error, CodeStageNotRunable, fmt.Sprintf("stage %s has no readable %s, so its cases cannot run", st.Name, workspace.ContractFile))
		return out
	}
	reads := Reads(ws, st, con)
	replaced := map[string]bool{}
	for _, in := range c.Inputs {
		abs, err := Target(ws, st, in)
		if err != nil {
			add(in.TargetRange, contract.Error, CodePathEscape, err.Error())
			continue
		}
		replaced[abs] = true
		if _, ok := reads[abs]; !ok {
			add(in.TargetRange, contract.Warning, CodeStandInUnused,
				fmt.Sprintf("%s does not read %s, so this stand-in changes nothing; it reads %s", st.Name, in.Target, listReads(reads)))
		}
		if !in.IsInline {
			if _, err := Resolve(ws, st, c, in.From); err != nil {
				var esc *workspace.EscapeError
				code := CodeStandInMissing
				if errors.As(err, &esc) {
					code = CodePathEscape
				}
				add(in.FromRange, contract.Error, code, "the stand-in "+err.Error())
			}
		}
	}
	for abs, in := range reads {
		if replaced[abs] || in.Layer != contract.LayerWorking {
			continue
		}
		if _, err := ws.Files.Stat(abs); err != nil {
			add(c.TitleRange, contract.Warning, CodeInputUncovered,
				fmt.Sprintf("%s reads %s, which does not exist yet, and the case gives no stand-in for it; add `- %s <- FILE` under ## Inputs", st.Name, in.Path, in.Path))
		}
	}
	for _, e := range c.Expect {
		if e.Output != "" {
			if _, ok := OutputFor(con, e.Output); !ok {
				add(e.Range, contract.Error, CodeUnknownOutput, fmt.Sprintf("%s writes no output %q; its outputs: %s", st.Name, e.Output, listOutputs(con)))
			}
		}
		if e.Check != nil && e.Check.Kind == contract.CheckJSONSchema {
			abs, err := Resolve(ws, st, c, e.Check.Arg)
			if err != nil {
				add(e.Range, contract.Error, CodeFileMissing, "the schema "+err.Error())
			} else if code, msg := schemaProblem(ws, abs); code != "" {
				add(e.Range, contract.Error, code, msg)
			}
		}
	}
	if len(c.Expect) == 0 && len(con.Verify) == 0 {
		add(c.TitleRange, contract.Error, CodeNoExpect, fmt.Sprintf("the case expects nothing and %s has no Verify checks, so it cannot fail; add an ## Expect section", st.Name))
	}
	return out
}

func listReads(reads map[string]contract.Input) string {
	var names []string
	for _, in := range reads {
		names = append(names, in.Path)
	}
	if len(names) == 0 {
		return "no files"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func listOutputs(con *contract.Contract) string {
	var names []string
	for _, o := range con.Outputs {
		names = append(names, o.Path)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
