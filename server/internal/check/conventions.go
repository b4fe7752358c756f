package check

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// ConventionsTemplate is the opt-in profile of the ICM template's own house
// rules: the rules its bin/validate.py checks (from its _core/CONVENTIONS.md
// and its README's checklist), reported as warnings. Paths are resolved
// the way icm resolves them (a leading "/" is the repository root, not the
// file system's), bundled skills/ are left to their authors as the
// template's checker leaves them, and the file names the template itself
// ships in capitals (AGENTS.md, PROGRESS.md, QUALITY-GATES.md) are no
// breach of its lowercase rule. What icm writes itself (its state
// folders, the run history, the _config/ folder icm init makes, the
// outputs a stage declares) is no breach of any.
const ConventionsTemplate = "icm-template"

// The rules, by the names the template's checker gives them.
const (
	ruleContextLines   = "CONTEXT.md under 80 lines"
	ruleReferenceLines = "Reference files under 200 lines"
	ruleEmDash         = "No em dashes (U+2014)"
	ruleGitkeep        = "Empty persistent folders carry .gitkeep"
	ruleSpaces         = "No spaces in file or folder names"
	ruleLowercase      = "Names are lowercase-with-hyphens"
	ruleStagePrefix    = "Stage folders use a zero-padded numeric prefix"
	ruleSectionOrder   = "Stage CONTEXT.md has Inputs, Process, Outputs in order"
	ruleScope          = "Inputs rows carry a Section/Scope value"
	ruleOneWay         = "Stage cross-references are one-way"
	ruleOutputs        = "Output folders contain only .gitkeep"
	ruleResolve        = "Inputs-table paths resolve"
	ruleRegistered     = "Every workspace is registered in README and root CLAUDE.md"
	ruleLinks          = "Markdown links have real targets"
	ruleReadmeDirs     = "Directories described in the README exist"
)

// ConventionRules lists the profile's rules in the order they are checked.
var ConventionRules = []string{
	ruleContextLines, ruleReferenceLines, ruleEmDash, ruleGitkeep, ruleSpaces, ruleLowercase, ruleStagePrefix,
	ruleSectionOrder, ruleScope, ruleOneWay, ruleOutputs, ruleResolve, ruleRegistered, ruleLinks, ruleReadmeDirs,
}

var (
	conventionSkip  = map[string]bool{".git": true, "__pycache__": true, "node_modules": true, ".venv": true}
	nameExempt      = map[string]bool{"CLAUDE.md": true, "CONTEXT.md": true, "CONVENTIONS.md": true, "README.md": true, "SKILL.md": true, "LICENSE": true, "LICENSE.txt": true, "_core": true, ".gitkeep": true, ".gitignore": true, ".github": true, "AGENTS.md": true, "PROGRESS.md": true, "QUALITY-GATES.md": true}
	lowerName       = regexp.MustCompile(`^[a-z0-9]+([-._][a-z0-9]+)*$`)
	stageName       = regexp.MustCompile(`^\d{2}-[a-z0-9]+(-[a-z0-9]+)*$`)
	stageMention    = regexp.MustCompile(`\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*`)
	placeholderLink = regexp.MustCompile(`(?i)\]\(\s*(link-to-\S*|TODO|TBD|url|example\.com\S*|#?)\s*\)`)
	readmeDir       = regexp.MustCompile(`(?m)^\s{2,}([a-z_][a-z0-9_-]*)/\s+#`)
	layer3Folders   = []string{"references", "shared", "brand-vault", "design-system", "skills"}
	styleExts       = []string{".md", ".txt", ".py", ".js", ".tsx"}
)

// conventions checks the opt-in conventions profile, when config.toml or
// the run asks for it.
func (c *checker) conventions() {
	profile := c.opts.Conventions
	if profile == "" {
		profile = c.ws.Config.Check.Conventions
	}
	if profile != ConventionsTemplate {
		return
	}
	cv := &convention{c: c, ws: c.ws}
	cv.tree()
	// The stages of this workspace, or of the workspaces this folder holds
	// (the template's repository root).
	cv.stages(c.ws, c.r.Stages)
	for _, rel := range c.ws.Nested {
		nested, err := workspace.OpenWith(c.ws.Abs(rel), workspace.Options{Repository: repoOf(c.ws)})
		if err != nil {
			continue
		}
		sub := Run(nested, Options{Estimator: c.opts.Estimator, Servers: map[string]bool{}, Files: func() []string { return nil }})
		cv.stages(nested, sub.Stages)
		nested.Close()
	}
	cv.registered()
}

// repoOf is the repository root nested workspaces are read in: the
// workspace's own, or the folder itself when it has none.
func repoOf(ws *workspace.Workspace) string {
	if ws.Repository != "" {
		return ws.Repository
	}
	return ws.Root
}

type convention struct {
	c  *checker
	ws *workspace.Workspace
}

func (cv *convention) add(file string, r document.Range, rule, what string) {
	cv.c.add(contract.Finding{File: file, Range: r, Severity: contract.Warning, Code: contract.CodeConventions, Basis: contract.BasisConventions,
		Message: fmt.Sprintf("%s convention %q: %s", ConventionsTemplate, rule, what), Data: map[string]string{"rule": rule}})
}

// icmsOwnDir reports whether a folder below the workspace is one icm
// keeps for itself: a state folder (.icm/, at the root or a stage's) or
// the run history. The profile's rules are about what the author writes.
func icmsOwnDir(rel string) bool {
	return path.Base(rel) == state.StateDir || rel == workspace.HistoryDir
}

// vendoredPath reports whether a path lies in a bundled skills/ folder,
// which the style rules leave to its authors.
func vendoredPath(rel string) bool {
	return strings.HasPrefix(rel, "skills/") || strings.Contains(rel, "/skills/")
}

// tree checks the rules about files and folders, over the whole folder.
func (cv *convention) tree() {
	ws := cv.ws
	var dirs, files []string
	_ = ws.Disk.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return nil
		}
		if d.IsDir() {
			if conventionSkip[d.Name()] || icmsOwnDir(p) {
				return fs.SkipDir
			}
			dirs = append(dirs, p)
			return nil
		}
		files = append(files, p)
		return nil
	})
	for _, rel := range dirs {
		abs := ws.Abs(rel)
		if entries, err := ws.Disk.ReadDir(rel); err == nil && len(entries) == 0 {
			cv.add(abs, document.Range{}, ruleGitkeep, rel+"/ is empty")
		}
		if path.Base(rel) == workspace.OutputDir {
			entries, _ := ws.Disk.ReadDir(rel)
			var extra []string
			for _, e := range entries {
				// What a stage declares it writes there is the run's, not
				// a file left in the template.
				if _, written := cv.c.r.ProducedBy[path.Join(rel, e.Name())]; e.Name() != ".gitkeep" && !written {
					extra = append(extra, e.Name())
				}
			}
			if len(extra) > 0 {
				cv.add(abs, document.Range{}, ruleOutputs, fmt.Sprintf("%s/ holds %s", rel, strings.Join(extra, ", ")))
			}
		}
		if parent := path.Dir(rel); path.Base(parent) == "stages" && !stageName.MatchString(path.Base(rel)) {
			cv.add(abs, document.Range{}, ruleStagePrefix, rel+"/ is not named like 01-name")
		}
	}
	for _, rel := range append(append([]string(nil), files...), dirs...) {
		base := path.Base(rel)
		if strings.Contains(rel, " ") && !strings.Contains(path.Dir(rel), " ") {
			cv.add(ws.Abs(rel), document.Range{}, ruleSpaces, rel)
		}
		if !vendoredPath(rel) && !nameExempt[base] && rel != workspace.ConfigDir && !lowerName.MatchString(base) {
			cv.add(ws.Abs(rel), document.Range{}, ruleLowercase, rel)
		}
	}
	for _, rel := range files {
		cv.file(rel)
	}
}

// file checks one file's own rules: its length, em dashes, links.
func (cv *convention) file(rel string) {
	ext := strings.ToLower(filepath.Ext(rel))
	style := !vendoredPath(rel) && containsString(styleExts, ext)
	isMD := ext == ".md"
	if !style && !isMD {
		return
	}
	abs := cv.ws.Abs(rel)
	data, err := cv.ws.Files.ReadFile(abs)
	if err != nil {
		return
	}
	lines := lineCount(data)
	if path.Base(rel) == workspace.ContractFile && lines > contract.MaxContractLines && cv.ws.StageOf(abs) == nil {
		// A stage's contract already has its own finding on its length.
		cv.add(abs, lineSpan(data, contract.MaxContractLines+1), ruleContextLines, fmt.Sprintf("%s has %d lines", rel, lines))
	}
	if isMD && !vendoredPath(rel) && lines > contract.MaxReferenceLines && inLayer3(rel) {
		cv.add(abs, lineSpan(data, contract.MaxReferenceLines+1), ruleReferenceLines, fmt.Sprintf("%s has %d lines", rel, lines))
	}
	if style {
		if n := bytes.Count(data, []byte("\u2014")); n > 0 {
			cv.add(abs, lineSpan(data, lineOfByte(data, bytes.Index(data, []byte("\u2014")))), ruleEmDash, fmt.Sprintf("%s holds %d", rel, n))
		}
	}
	if style && isMD {
		for _, m := range placeholderLink.FindAllIndex(data, -1) {
			cv.add(abs, lineSpan(data, lineOfByte(data, m[0])), ruleLinks, string(data[m[0]:m[1]]))
		}
	}
	if rel == "README.md" {
		cv.readmeDirs(abs, data)
	}
}

// inLayer3 reports whether a path lies in one of the template's reference
// folders.
func inLayer3(rel string) bool {
	for _, d := range layer3Folders {
		if strings.Contains("/"+rel, "/"+d+"/") {
			return true
		}
	}
	return false
}

func lineOfByte(data []byte, off int) int {
	if off < 0 {
		return 1
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// readmeDirs checks that every folder the README's tree describes exists.
func (cv *convention) readmeDirs(abs string, data []byte) {
	real := map[string]bool{}
	_ = cv.ws.Disk.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if conventionSkip[d.Name()] {
				return fs.SkipDir
			}
			real[d.Name()] = true
		}
		return nil
	})
	seen := map[string]bool{}
	for _, m := range readmeDir.FindAllSubmatchIndex(data, -1) {
		name := string(data[m[2]:m[3]])
		if seen[name] || real[name] {
			continue
		}
		seen[name] = true
		cv.add(abs, lineSpan(data, lineOfByte(data, m[0])), ruleReadmeDirs, fmt.Sprintf("the README describes %s/, but there is no such folder", name))
	}
}

// stages checks the rules about stage contracts of one workspace.
func (cv *convention) stages(ws *workspace.Workspace, reports []*StageReport) {
	mentions := map[string]map[string]bool{}
	for _, sr := range reports {
		k := sr.Contract
		if k == nil {
			continue
		}
		cv.order(ws, sr)
		cv.scopes(sr)
		cv.resolve(ws, sr)
		mentions[sr.Stage.Name] = cv.mentioned(ws, sr.Stage)
	}
	var pairs []string
	for a, ms := range mentions {
		for b := range ms {
			if a < b && mentions[b][a] {
				pairs = append(pairs, a+" <-> "+b)
			}
		}
	}
	sort.Strings(pairs)
	for _, p := range pairs {
		a, _, _ := strings.Cut(p, " <-> ")
		st, _ := ws.Stage(a)
		cv.add(st.Contract, document.Range{}, ruleOneWay, fmt.Sprintf("%s refer to each other", p))
	}
}

// order checks that Inputs, Process and Outputs are there, in this order.
func (cv *convention) order(ws *workspace.Workspace, sr *StageReport) {
	var kinds []string
	for _, s := range sr.Contract.Sections {
		switch s.Kind {
		case contract.KindInputs, contract.KindProcess, contract.KindOutputs:
			kinds = append(kinds, s.Kind)
		}
	}
	want := []string{contract.KindInputs, contract.KindProcess, contract.KindOutputs}
	pos := func(k string) int {
		for i, x := range kinds {
			if x == k {
				return i
			}
		}
		return -1
	}
	for _, k := range want {
		if pos(k) < 0 {
			cv.add(sr.Stage.Contract, sr.Contract.TitleRange, ruleSectionOrder, fmt.Sprintf("%s has no %s section", ws.Rel(sr.Stage.Contract), k))
			return
		}
	}
	if !(pos(want[0]) < pos(want[1]) && pos(want[1]) < pos(want[2])) {
		cv.add(sr.Stage.Contract, sr.Contract.TitleRange, ruleSectionOrder, fmt.Sprintf("%s has its sections in the order %s", ws.Rel(sr.Stage.Contract), strings.Join(kinds, ", ")))
	}
}

// scopes checks that every row of the Inputs table names a section
// scope: a Section/Scope column with a value in it.
func (cv *convention) scopes(sr *StageReport) {
	k := sr.Contract
	for _, s := range k.Sections {
		if s.Kind != contract.KindInputs {
			continue
		}
		src := sr.Source
		if s.Range.End > len(src) {
			continue
		}
		doc := markdown.Parse(src[s.Range.Start:s.Range.End])
		for _, sec := range doc.Sections(2) {
			for _, b := range sec.Blocks {
				if b.Kind != markdown.BlockTable {
					continue
				}
				for _, row := range b.Table.Rows {
					if len(row) >= 3 && len(b.Table.Header) >= 4 && strings.TrimSpace(row[2].Text) != "" {
						continue
					}
					r := document.Range{Start: s.Range.Start + row[0].Range.Start, End: s.Range.Start + row[len(row)-1].Range.End}
					cv.add(sr.Stage.Contract, r, ruleScope, fmt.Sprintf("the row %q names no section scope", strings.TrimSpace(row[0].Text)))
				}
			}
		}
		return
	}
}

// resolve checks the Inputs-table paths with icm's own resolver; a path
// icm's check already reports missing is not said again.
func (cv *convention) resolve(ws *workspace.Workspace, sr *StageReport) {
	for _, in := range sr.Contract.Inputs {
		if in.NonFile || in.Notation != "table" || in.Templated || in.Glob || in.Path == "" || strings.Contains(in.Path, "/output/") || strings.HasPrefix(in.Path, "output/") {
			continue
		}
		loc, err := assemble.Locate(ws, sr.Stage, in)
		if err != nil || loc.Exists {
			continue
		}
		if cv.reported(sr.Stage.Contract, in.PathRange) {
			continue
		}
		cv.add(sr.Stage.Contract, in.PathRange, ruleResolve, fmt.Sprintf("%s resolves to no file", in.Path))
	}
}

// reported reports whether the report already says the input at r is
// missing (icm's own finding, in a check of that workspace itself; from a
// folder holding workspaces, their own findings are not shown, so the
// rule says it).
func (cv *convention) reported(file string, r document.Range) bool {
	for _, f := range cv.c.r.Findings {
		if f.File == file && f.Range.Start == r.Start && (f.Code == contract.CodeInputMissing || f.Code == contract.CodePathEscape) {
			return true
		}
	}
	return false
}

// mentioned names the other stages of the workspace a stage's files name.
func (cv *convention) mentioned(ws *workspace.Workspace, st *workspace.Stage) map[string]bool {
	names := map[string]bool{}
	for _, s := range ws.Stages {
		names[s.Name] = true
	}
	out := map[string]bool{}
	_ = ws.Disk.WalkDir(st.Rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		data, err := ws.Files.ReadFile(ws.Abs(p))
		if err != nil {
			return nil
		}
		for _, m := range stageMention.FindAll(data, -1) {
			if n := string(m); n != st.Name && names[n] {
				out[n] = true
			}
		}
		return nil
	})
	return out
}

// registered checks, in a folder holding workspaces/, that each is named
// in its README and its CLAUDE.md.
func (cv *convention) registered() {
	ws := cv.ws
	entries, err := ws.Disk.ReadDir("workspaces")
	if err != nil {
		return
	}
	read := func(name string) string {
		data, _ := ws.Files.ReadFile(ws.Abs(name))
		return string(data)
	}
	readme, claude := read("README.md"), read(workspace.IdentityFile)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		var absent []string
		if !strings.Contains(readme, e.Name()) {
			absent = append(absent, "README.md")
		}
		if !strings.Contains(claude, e.Name()) {
			absent = append(absent, workspace.IdentityFile)
		}
		if len(absent) > 0 {
			cv.add(ws.Abs("workspaces/"+e.Name()), document.Range{}, ruleRegistered, fmt.Sprintf("workspaces/%s is absent from %s", e.Name(), strings.Join(absent, " and ")))
		}
	}
}
