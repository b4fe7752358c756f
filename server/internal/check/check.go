// Package check analyses a whole workspace: every contract's own findings
// plus what needs the other stages and the files on disk (missing inputs,
// inputs from later stages, escaping paths, For each sources, output
// conflicts, size and token budgets, unknown tool servers). `icm check` and
// the language server's diagnostics both come from Run.
package check

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/human"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/suggest"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/textnorm"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Options tune a check.
type Options struct {
	// Estimator counts tokens; nil means tokens.Default.
	Estimator tokens.Estimator
	// Window is the model's context window in tokens; 0 when unknown.
	Window int
	// Reserve is the room kept for the answer when comparing with Window.
	Reserve int
	// Servers lists the MCP server names a stage may use; nil means the
	// servers of the workspace's config.toml.
	Servers map[string]bool
	// Tools, when set, returns the tools a server offers (ok false when
	// unknown), so tool names can be checked too.
	Tools func(server string) (names []string, ok bool)
	// Files, when set, lists the workspace's files (as ListFiles does) for
	// suggesting a path in place of a missing one; nil walks the disk, once
	// per Run. The language server keeps the list between keystrokes.
	Files func() []string
	// Models are the model server's installed models, so a [model] name
	// it lacks is a finding with the one probably meant; nil when unknown.
	Models []string
	// ModelServer names the model server in that finding.
	ModelServer string
	// Conventions names an opt-in conventions profile to check besides
	// icm's own findings (ConventionsTemplate); "" means the one
	// config.toml's [check] conventions names, if any.
	Conventions string
}

// Report is the result of checking a workspace.
type Report struct {
	Workspace *workspace.Workspace
	Stages    []*StageReport
	// Findings holds every finding, sorted by file and position.
	Findings []contract.Finding
	// ProducedBy maps workspace-relative output paths to the stage declaring them.
	ProducedBy map[string]string
}

// StageReport is what check learned about one stage.
type StageReport struct {
	Stage    *workspace.Stage
	Contract *contract.Contract // nil when the stage has no CONTEXT.md
	Source   []byte
	// Context is the assembled context (missing inputs marked), nil when
	// the stage could not be assembled (an escaping path).
	Context *assemble.Context
	// Items is the number of For each items, or -1 when the stage has no
	// For each or its source is not there yet.
	Items int
	// Cases are the stage's test cases (tests/), parsed.
	Cases []*testcase.Case
}

// Run checks every stage of ws.
func Run(ws *workspace.Workspace, opts Options) *Report {
	if opts.Estimator == nil {
		opts.Estimator = tokens.Default
	}
	if opts.Servers == nil {
		opts.Servers = map[string]bool{}
		for name := range ws.Config.MCP.Servers {
			opts.Servers[name] = true
		}
	}
	r := &Report{Workspace: ws, ProducedBy: map[string]string{}}
	// The checker sees the workspace as one pass (folder handles and
	// resolutions kept until it ends) through a memo of this run's reads.
	pass := ws.Pass()
	defer pass.EndPass()
	pass.Files = newMemo(pass.Files)
	c := &checker{ws: pass, opts: opts, r: r, producer: map[string]int{}, external: map[string]int{}, varsNoted: map[string]bool{}, docs: assemble.NewDocs()}
	c.configFindings()
	c.layoutFindings()
	c.linkFindings()
	for _, st := range ws.Stages {
		sr := &StageReport{Stage: st, Items: -1}
		r.Stages = append(r.Stages, sr)
		if st.Escape != nil {
			continue // reported by linkFindings; nothing of it is read
		}
		src, err := c.ws.Files.ReadFile(st.Contract)
		if err != nil {
			c.add(contract.Finding{File: st.Dir, Severity: contract.Error, Code: contract.CodeNoContract,
				Message: fmt.Sprintf("stage %s has no readable %s: %v", st.Name, workspace.ContractFile, err)})
			continue
		}
		sr.Source = src
		sr.Contract = contract.ParseWith(st.Contract, src, contract.Options{Vars: ws.Vars})
	}
	c.indexOutputs()
	// Every stage starts with the same identity and routing: read once.
	c.layers, _ = assemble.Layers(c.ws, opts.Estimator)
	for _, sr := range r.Stages {
		if sr.Contract != nil {
			c.stage(sr)
		}
	}
	c.cases()
	c.textVars()
	c.conventions()
	r.Findings = settle(r.Findings)
	sortFindings(r.Findings)
	return r
}

// settle gives every finding its basis and holds the rule that only a
// certain fact that stops the stage is an error (contract.Settle: one
// resting on how icm read someone else's notation is a note, any other
// a warning), then drops a finding that says what another at the same
// place already says.
func settle(fs []contract.Finding) []contract.Finding {
	type key struct {
		file  string
		start int
		code  string
		rule  string
		// section tells apart the sections a missing-section finding
		// names: two at a contract's title say two things.
		section string
	}
	seen := map[key]bool{}
	out := fs[:0]
	for _, f := range fs {
		f = contract.Settle(f)
		k := key{f.File, f.Range.Start, f.Code, f.Data["rule"], f.Data["section"]}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// HasErrors reports whether any finding is an error.
func (r *Report) HasErrors() bool {
	for _, f := range r.Findings {
		if f.Severity == contract.Error {
			return true
		}
	}
	return false
}

// FindingsFor returns the findings about one file.
func (r *Report) FindingsFor(file string) []contract.Finding {
	var out []contract.Finding
	for _, f := range r.Findings {
		if f.File == file {
			out = append(out, f)
		}
	}
	return out
}

// Stage returns the report of the named stage, or nil.
func (r *Report) Stage(name string) *StageReport {
	for _, s := range r.Stages {
		if s.Stage.Name == name {
			return s
		}
	}
	return nil
}

type checker struct {
	ws   *workspace.Workspace
	opts Options
	r    *Report
	// producer maps workspace-relative output paths to the producing stage's index.
	producer map[string]int
	// external maps the paths stages write outside their output/ folder
	// (ExternalOutputs) to the first stage that names them.
	external map[string]int
	files    []string // declared outputs and workspace files, listed lazily for path suggestions
	// varsNoted are the setup-time variables a note already names.
	varsNoted map[string]bool
	// layers are the identity and routing parts every stage starts with.
	layers *assemble.LayerParts
	// docs remembers the Markdown of the files the check parses.
	docs *assemble.Docs
}

func (c *checker) add(f contract.Finding) { c.r.Findings = append(c.r.Findings, f) }

func (c *checker) configFindings() {
	cfgPath := filepath.Join(c.ws.Root, config.FileName)
	data, err := c.ws.Files.ReadFile(cfgPath)
	if err != nil {
		if c.ws.ConfigErr != nil {
			c.add(contract.Finding{File: cfgPath, Severity: contract.Error, Code: contract.CodeConfig, Message: c.ws.ConfigErr.Error()})
		}
		return
	}
	// The text as the editor has it (or the disk): each problem at its key.
	for _, p := range config.Lint(data, config.LintOptions{Models: c.opts.Models, Server: c.opts.ModelServer}) {
		f := contract.Finding{File: cfgPath, Severity: contract.Warning, Code: p.Code,
			Range: document.Range{Start: p.Span.Start, End: p.Span.End}, Message: "config.toml: " + p.Message}
		if p.Error {
			f.Severity = contract.Error
		}
		if p.Suggestion != "" || p.Key != "" {
			f.Data = map[string]string{"key": p.Key}
			if p.Suggestion != "" {
				f.Data["suggest"] = p.Suggestion
			}
		}
		c.add(f)
	}
}

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

func (c *checker) stage(sr *StageReport) {
	st, k := sr.Stage, sr.Contract
	// The contract's own findings settled where they are kept, so what
	// reads them (status, a run) sees what check prints.
	k.Findings = settle(k.Findings)
	for _, f := range k.Findings {
		c.add(f)
	}
	c.stageLayout(st, k)
	escaped := false
	for _, in := range k.Inputs {
		if in.NonFile || in.Path == "" {
			continue
		}
		if !c.input(st, k, in) {
			escaped = true
		}
	}
	if k.ForEach != nil {
		if !c.forEach(sr) {
			escaped = true
		}
	}
	c.externalOutputs(st, k)
	c.servers(st, k)
	c.fileSettings(st, k)
	c.thresholds(st, k)
	if escaped {
		return
	}
	ctx, err := assemble.Stage(c.ws, st, k, assemble.Options{Estimator: c.opts.Estimator, AllowMissing: true, ProducedBy: c.r.ProducedBy, Layers: c.layers, Docs: c.docs})
	if err != nil {
		c.add(contract.Finding{File: st.Contract, Range: k.TitleRange, Severity: contract.Error, Code: contract.CodeBadInput,
			Message: fmt.Sprintf("unable to assemble the stage's context: %v", err)})
		return
	}
	sr.Context = ctx
	c.budget(st, k, ctx)
	c.nothingLoaded(st, k, ctx)
}

// nothingLoaded notes a stage whose Inputs section has lines but loads
// no file from them, now or once an earlier stage has run: a fenced block
// of bare file names, paths read from among other words none of which is
// there. A section saying there is no input, one with a path of its own
// (loaded, or an error says why not), one whose every entry names
// something that is not a file (each noted already), or one naming no
// file at all (what the person brings) gets no word.
func (c *checker) nothingLoaded(st *workspace.Stage, k *contract.Contract, ctx *assemble.Context) {
	var sec *contract.Section
	for i := range k.Sections {
		if k.Sections[i].Kind == contract.KindInputs {
			sec = &k.Sections[i]
			break
		}
	}
	if sec == nil || saysNone(sec.Text) {
		return
	}
	files := 0
	for _, in := range k.Inputs {
		if !in.NonFile && in.Path != "" {
			if !in.Embedded {
				// A path of its own: loaded, or a finding says why not.
				return
			}
			files++
		}
	}
	if files == 0 && (len(k.Inputs) > 0 || !contract.MentionsFile(sec.Text)) {
		// Entries that are not files, or lines that name none (what a
		// person brings): nothing was meant to load.
		return
	}
	for _, p := range ctx.Parts {
		if p.Layer != contract.LayerReference && p.Layer != contract.LayerWorking {
			continue
		}
		if p.Path != "" && (!p.Missing || p.ProducedBy != "") {
			return // loaded, or loaded once its stage has run
		}
	}
	c.add(contract.Finding{File: st.Contract, Range: sec.Heading, Severity: contract.Info, Code: contract.CodeNoInputLoaded,
		Message: fmt.Sprintf("the %q section loads no file: no line of it names a file that is there or that an earlier stage writes, so the model gets none of it", sec.Name)})
}

// saysNone reports whether a section's text says there is nothing in it
// ("None.", "- n/a").
func saysNone(text string) bool {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(text), " -*_.`"))
	for _, w := range []string{"none", "n/a", "nothing", "no inputs", "no input"} {
		if strings.HasPrefix(t, w) {
			return true
		}
	}
	return t == ""
}

// input checks one file input and returns false when its path escapes.
func (c *checker) input(st *workspace.Stage, k *contract.Contract, in contract.Input) bool {
	loc, err := assemble.LocateWith(c.ws, st, in, c.isProduced)
	if err != nil {
		c.add(contract.Finding{File: st.Contract, Range: in.PathRange, Severity: escapeSeverity(err), Code: contract.CodePathEscape,
			Message: escapeMessage(err)})
		return false
	}
	at := func(sev contract.Severity, code, msg string) *contract.Finding {
		f := contract.Finding{File: st.Contract, Range: in.PathRange, Severity: sev, Code: code, Message: msg}
		if in.Embedded && sev == contract.Error {
			// Which words of the cell are the path rests on reading them.
			f.Basis = contract.BasisReading
		}
		c.add(f)
		return &c.r.Findings[len(c.r.Findings)-1]
	}
	if len(loc.Unset) > 0 {
		c.unsetVars(st, in.PathRange, in.Written, loc.Unset)
		return true
	}
	if c.layered(st, loc) {
		return true // the identity or routing file or the contract, loaded as layer 0, 1 or 2 already
	}
	rel := loc.Rel
	if in.Templated && !(in.Glob && loc.Exists) {
		c.placeholder(st, in, loc, at)
		if !loc.Exists {
			return true
		}
	} else if !in.Templated {
		for _, cand := range loc.Tried {
			i, ok := c.producerIndex(cand)
			if _, inside := c.producer[cand]; ok && !inside && loc.Exists {
				// A file some stage edits in place, already there: reading
				// it is no matter of order.
				continue
			}
			if ok && c.order(st, in, cand, i, at) {
				return true
			}
		}
	}
	switch {
	case !loc.Exists && in.Glob:
		if producer := c.globProducer(st, loc.Rel); producer != "" {
			f := at(contract.Info, contract.CodeInputNotYet, fmt.Sprintf("no file matches %s yet; stage %s writes the files that fit it", rel, producer))
			f.Data = map[string]string{"producer": producer}
			return true
		}
		if in.Optional {
			at(contract.Info, contract.CodeInputOptional, fmt.Sprintf("no file matches %s; the contract marks it optional, so the stage runs without it", rel))
			return true
		}
		// A pattern names no file of its own: that none fits yet is no
		// certainty the stage has nothing to read.
		at(contract.Warning, contract.CodeInputMissing, fmt.Sprintf("no file matches %s yet; the stage runs without it", rel))
		return true
	case !loc.Exists:
		c.absent(st, in, loc, at)
		return true
	case loc.Dir && len(loc.Files) == 0:
		if producer := c.producerOf(st, rel); producer != "" {
			f := at(contract.Info, contract.CodeInputNotYet, fmt.Sprintf("%s/ is empty so far; stage %s writes into it", rel, producer))
			f.Data = map[string]string{"producer": producer}
		} else if !loc.Own {
			at(contract.Info, contract.CodeEmptyFolder, fmt.Sprintf("%s/ is an empty folder; nothing is loaded from it until files are added", rel))
		}
		c.laterInFolder(st, in, loc, at)
		return true
	case loc.Dir || in.Glob:
		// A folder or glob input loads the files it holds: each must be
		// one icm reads.
		for _, f := range loc.Files {
			if _, err := c.ws.ReadInput(f); err != nil {
				c.refused(st, in.PathRange, c.ws.InputRel(f), err)
			}
		}
		c.laterInFolder(st, in, loc, at)
		c.folderLoad(st, in, loc, at)
		return true
	}
	if loc.Shared {
		at(contract.Info, contract.CodeSharedInput,
			fmt.Sprintf("%s is read from %s, in the repository above the workspace: read-only", rel, loc.Abs))
	}
	c.file(st, in, loc.Files[0], at)
	return true
}

// externalOutputs says of each output a stage names outside its output/
// folder that icm does not write it; one inside another stage's output/
// is an error: two stages' work would mix.
func (c *checker) externalOutputs(st *workspace.Stage, k *contract.Contract) {
	for _, o := range k.ExternalOutputs {
		rels := c.externalRels(st, o.Path)
		if owner := c.outputFolderOf(rels); owner != nil && owner != st {
			c.add(contract.Finding{File: st.Contract, Range: o.PathRange, Severity: contract.Error, Code: contract.CodeOutputLocation, Basis: contract.BasisStages,
				Message: fmt.Sprintf("%s is in the output/ folder of stage %s; a stage writes only into its own output/ folder", rels[0], owner.Name)})
			continue
		}
		c.add(contract.Finding{File: st.Contract, Range: o.PathRange, Severity: contract.Info, Code: contract.CodeOutputLocation, Basis: contract.BasisState,
			Message: fmt.Sprintf("%s is outside the stage's output/ folder; icm writes a stage's files only there, so icm run does not write it", o.Path)})
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

// layered reports whether an input names the identity or routing file,
// which every stage loads already (layer 0 and 1), or the stage's own
// contract (layer 2).
func (c *checker) layered(st *workspace.Stage, loc *assemble.Located) bool {
	if loc.Exists && loc.Abs == st.Contract {
		return true
	}
	if !loc.Exists || loc.Dir || filepath.Dir(loc.Abs) != c.ws.Root {
		return false
	}
	name := filepath.Base(loc.Abs)
	return name == workspace.RoutingFile || (c.ws.Identity != "" && name == c.ws.Identity)
}

// laterInFolder reports a folder input that holds a later stage's output
// folder (a "../../" that takes in the whole workspace): the stage would
// read what runs after it.
func (c *checker) laterInFolder(st *workspace.Stage, in contract.Input, loc *assemble.Located, at func(contract.Severity, string, string) *contract.Finding) {
	if !loc.Dir || loc.Shared {
		return
	}
	dir := loc.Rel
	for _, other := range c.r.Stages[st.Index+1:] {
		out := path.Join(other.Stage.Rel, workspace.OutputDir)
		if dir == "." || dir == out || strings.HasPrefix(out, dir+"/") {
			what := dir + "/"
			if dir == "." {
				what = "the workspace root"
			}
			// Certain, but the stage still runs: a warning.
			f := at(contract.Warning, contract.CodeInputLater,
				fmt.Sprintf("%s holds %s/, the output of stage %s, which runs after this one: the stage would read a later stage's work", what, out, other.Stage.Name))
			f.Data = map[string]string{"producer": other.Stage.Name}
			return
		}
	}
}

// folderLoad says when a folder or pattern input holds more than icm
// loads of it, and when its scope (which icm applies to single files) is
// not applied.
func (c *checker) folderLoad(st *workspace.Stage, in contract.Input, loc *assemble.Located, at func(contract.Severity, string, string) *contract.Finding) {
	var total int64
	n := 0
	for _, f := range loc.Files {
		if total >= assemble.MaxFolderBytes {
			break
		}
		if info, err := c.ws.StatInput(f); err == nil {
			total += info.Size()
		}
		n++
	}
	kind := "the folder " + loc.Rel
	switch {
	case in.Glob || in.Templated:
		kind = "the pattern " + loc.Rel
	case loc.Rel == ".":
		kind = "the workspace root"
	}
	switch {
	case loc.More:
		at(contract.Info, contract.CodeFolderCapped, fmt.Sprintf("%s holds more than %d files; icm loads the first %d (in name order)", kind, workspace.MaxFolderFiles, n))
	case n < len(loc.Files):
		at(contract.Info, contract.CodeFolderCapped, fmt.Sprintf("%s holds %d files; icm loads the first %d (%s at most, in name order)", kind, len(loc.Files), n, byteText(assemble.MaxFolderBytes)))
	}
}

// unsetVars notes, once per variable in the workspace, a setup-time
// variable a path needs and [vars] does not set.
func (c *checker) unsetVars(st *workspace.Stage, r document.Range, written string, names []string) {
	var fresh []string
	for _, n := range names {
		if !c.varsNoted[n] {
			c.varsNoted[n] = true
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 {
		return
	}
	msg := fmt.Sprintf("%s is a setup-time variable with no value, so icm cannot look for this path yet: set it in [vars] of config.toml", varList(fresh))
	if len(fresh) > 1 {
		msg = fmt.Sprintf("%s are setup-time variables with no value, so icm cannot look for this path yet: set them in [vars] of config.toml", varList(fresh))
	}
	if q := c.questionnaire(); q != "" {
		msg += " (" + q + " asks for " + pronoun(len(fresh)) + ")"
	}
	c.add(contract.Finding{File: st.Contract, Range: r, Severity: contract.Info, Code: contract.CodeSetupVar, Message: msg,
		Data: map[string]string{"vars": strings.Join(fresh, ",")}})
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// questionnaire names the workspace's setup questionnaire, when it has one.
func (c *checker) questionnaire() string {
	for _, name := range []string{"setup/questionnaire.md", "_config/questionnaire.md"} {
		if _, err := c.ws.Files.Stat(c.ws.Abs(name)); err == nil {
			return name
		}
	}
	return ""
}

// textVars notes once the setup-time variables that the assembled texts
// hold as written and no path note named: those a setup questionnaire
// asks for (a text may show `{{PLACEHOLDER}}` as an example).
func (c *checker) textVars() {
	q := c.questionnaire()
	if q == "" {
		return
	}
	data, err := c.ws.Files.ReadFile(c.ws.Abs(q))
	if err != nil {
		return
	}
	asked := contract.SetupVarNames(string(data))
	var left []string
	for _, sr := range c.r.Stages {
		if sr.Context == nil {
			continue
		}
		for _, n := range sr.Context.UnsetVars {
			if !c.varsNoted[n] && containsString(asked, n) && !containsString(left, n) {
				left = append(left, n)
			}
		}
	}
	if len(left) == 0 {
		return
	}
	for _, n := range left {
		c.varsNoted[n] = true
	}
	shown := left
	if len(shown) > 6 {
		shown = shown[:6]
	}
	msg := fmt.Sprintf("%d setup-time variables the stages' texts hold have no value (%s", len(left), varList(shown))
	if len(left) > len(shown) {
		msg += ", …"
	}
	msg += "), so the model reads them as written: set them in [vars] of config.toml (" + q + " asks for them)"
	if len(left) == 1 {
		msg = fmt.Sprintf("the setup-time variable %s the stages' texts hold has no value, so the model reads it as written: set it in [vars] of config.toml (%s asks for it)", varList(left), q)
	}
	c.add(contract.Finding{File: c.ws.Abs(q), Severity: contract.Info, Code: contract.CodeSetupVar, Message: msg,
		Data: map[string]string{"vars": strings.Join(left, ",")}})
}

// varList writes variable names as placeholders.
func varList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "{{" + n + "}}"
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func byteText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// order reports an input another stage writes: an error when that stage
// runs later, a note when it is this stage's own output (the previous
// version, as templates express revision). It returns true when nothing
// more is to be said about the input.
func (c *checker) order(st *workspace.Stage, in contract.Input, rel string, i int, at func(contract.Severity, string, string) *contract.Finding) bool {
	switch {
	case i == st.Index:
		if _, own := c.producer[rel]; !own {
			return true // a file the stage edits in place, outside output/
		}
		at(contract.Info, contract.CodeInputSelf,
			fmt.Sprintf("%s is this stage's own output; icm loads it as the previous version when there is one", rel))
		return true
	case i > st.Index:
		f := at(contract.Error, contract.CodeInputLater,
			fmt.Sprintf("%s is written by stage %s, which runs after this one; reorder the stages or read an earlier output", rel, c.r.Stages[i].Stage.Name))
		f.Data = map[string]string{"producer": c.r.Stages[i].Stage.Name}
		return true
	}
	return false
}

// placeholder says what a path holding a placeholder leads to: the one
// file that fits it (which is loaded), several (none is), or none yet.
func (c *checker) placeholder(st *workspace.Stage, in contract.Input, loc *assemble.Located, at func(contract.Severity, string, string) *contract.Finding) {
	switch n := len(loc.Matches); {
	case n == 1:
		at(contract.Info, contract.CodePlaceholderPath,
			fmt.Sprintf("%s holds a placeholder; icm loads %s, the one file that fits it", in.Path, loc.Matches[0]))
	case n > 1:
		at(contract.Info, contract.CodePlaceholderPath,
			fmt.Sprintf("%s holds a placeholder that %d files fit (%s); icm loads none of them: name the one to use", in.Path, n, strings.Join(loc.Matches, ", ")))
	default:
		if producer := c.patternProducer(st, loc.Rel); producer != "" {
			at(contract.Info, contract.CodePlaceholderPath,
				fmt.Sprintf("%s holds a placeholder; stage %s writes the file that fits it, and icm loads it once it exists", in.Path, producer))
			return
		}
		if own := assemble.PatternProducer(c.r.ProducedBy, loc.Rel); own == st.Name {
			at(contract.Info, contract.CodePlaceholderPath,
				fmt.Sprintf("%s holds a placeholder; this stage writes the file that fits it, and icm loads the previous one when there is one", in.Path))
			return
		}
		if in.Optional || loc.Own {
			at(contract.Info, contract.CodePlaceholderPath, fmt.Sprintf("%s holds a placeholder and no file fits it yet; icm loads it once one does", in.Path))
			return
		}
		if spans := c.spanning(st, in); len(spans) > 0 {
			// Not certain the stage has nothing to read: a placeholder may
			// stand for several folders.
			at(contract.Info, contract.CodePlaceholderPath,
				fmt.Sprintf("%s holds a placeholder that fits no file as one folder, but fits %s when it stands for several; icm loads the file the run names", in.Path, countedList(spans, 3)))
			return
		}
		f := at(contract.Warning, contract.CodeInputMissing,
			fmt.Sprintf("no file fits %s yet (its placeholder is filled at run time) and no earlier stage writes one; the stage runs without it", loc.Rel))
		f.Data = map[string]string{"path": loc.Rel}
	}
}

// spanning lists the files that fit a path holding placeholders when each
// placeholder that is a whole folder stands for one folder or more.
func (c *checker) spanning(st *workspace.Stage, in contract.Input) []string {
	pattern := assemble.SpanningPattern(in.Path)
	if pattern == "" || in.Glob {
		return nil
	}
	matches, _, _, err := assemble.Glob(c.ws, st.Dir, pattern)
	if err != nil {
		return nil
	}
	rels := make([]string, len(matches))
	for i, m := range matches {
		rels[i] = c.ws.InputRel(m)
	}
	return rels
}

// countedList names up to n items and says how many more there are.
func countedList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// absent reports an input that does not exist: the stage's own previous
// output and optional inputs are notes, an earlier stage's output is a
// note that names it, anything else is an error.
func (c *checker) absent(st *workspace.Stage, in contract.Input, loc *assemble.Located, at func(contract.Severity, string, string) *contract.Finding) {
	rel := loc.Rel
	if loc.Own {
		at(contract.Info, contract.CodeInputSelf,
			fmt.Sprintf("%s is in this stage's own output folder; icm loads it as the previous version when there is one", rel))
		return
	}
	if producer := c.producerOf(st, rel); producer != "" {
		f := at(contract.Info, contract.CodeInputNotYet, fmt.Sprintf("%s does not exist yet; stage %s produces it", rel, producer))
		f.Data = map[string]string{"producer": producer}
		return
	}
	if in.Optional {
		at(contract.Info, contract.CodeInputOptional,
			fmt.Sprintf("%s does not exist; the contract marks it optional, so the stage runs without it", rel))
		return
	}
	if loc.Shared {
		where := fmt.Sprintf("up to %s, the repository root", c.ws.Repository)
		if c.ws.RepositoryFrom == workspace.RepositoryNamed {
			where = fmt.Sprintf("up to %s, the repository root named with --repo or ICM_REPO", c.ws.Repository)
		}
		f := at(contract.Error, contract.CodeInputMissing,
			fmt.Sprintf("input %s does not exist in the workspace nor in the folders above it %s", rel, where))
		f.Data = map[string]string{"path": rel}
		return
	}
	if c.ws.SharedFromItself(in.Path) {
		// Not an error: the file may be in the repository above, which
		// icm does not read until the person names it. A run says the same.
		f := at(contract.Info, contract.CodeInputMissing, fmt.Sprintf("input %s is not in the workspace; %s", rel, workspace.OutsideGitShared))
		f.Data = map[string]string{"path": rel}
		return
	}
	msg := fmt.Sprintf("input %s does not exist and no earlier stage produces it", rel)
	if len(loc.Tried) > 1 {
		msg = fmt.Sprintf("input %s does not exist (looked for as %s) and no earlier stage produces it", in.Path, strings.Join(loc.Tried, ", "))
	}
	sev := contract.Error
	switch {
	case in.Embedded:
		// A note (settle): that the path is an input is icm's reading.
		msg += "; icm took it for an input from the words around it, so the stage runs without it"
	case !in.Plain():
		// A folder, a web address: no one file the stage is certain to
		// need.
		sev = contract.Warning
		msg += "; the stage runs without it"
	}
	f := at(sev, contract.CodeInputMissing, msg)
	f.Data = map[string]string{"path": rel}
	if strings.HasSuffix(in.Path, "/") {
		return // no file stands in for a folder
	}
	if s := c.suggest(rel); s != "" && !containsString(loc.Tried, s) {
		f.Message += fmt.Sprintf("; did you mean %s?", s)
		f.Data["suggest"] = s
		f.Data["suggest_relative"] = relTo(st.Rel, s)
	}
}

// file checks one existing file input: binary files, long references and
// scopes that name headings the file lacks.
func (c *checker) file(st *workspace.Stage, in contract.Input, abs string, at func(contract.Severity, string, string) *contract.Finding) {
	rel := c.ws.InputRel(abs)
	src, err := c.ws.ReadInput(abs)
	if err != nil {
		c.refused(st, in.PathRange, rel, err)
		return
	}
	if document.IsBinary(src) {
		at(contract.Info, contract.CodeBinaryInput,
			fmt.Sprintf("%s is a binary file (%d bytes); the model is given its path and size, never its bytes", rel, len(src)))
		return
	}
	if len(bytes.TrimSpace(src)) == 0 {
		at(contract.Warning, contract.CodeEmptyInput, fmt.Sprintf("%s is empty: the stage gets nothing from it", rel))
		return
	}
	if in.Layer == contract.LayerReference && textInput(abs) {
		c.referenceLength(in, rel, textnorm.Text(src), c.ws.Shared(abs), at)
	}
	sc := in.Scope
	switch {
	case sc == nil || sc.PathOnly:
	case sc.Table:
		c.add(contract.Finding{File: st.Contract, Range: sc.Range, Severity: contract.Info, Code: contract.CodeFreeScope,
			Message: fmt.Sprintf("scope %q names part of a table, not a heading: icm loads the whole of %s", sc.Raw, rel)})
	case sc.FreeText:
		if c.docs.Effective(abs, src, sc) == nil {
			c.add(contract.Finding{File: st.Contract, Range: sc.Range, Severity: contract.Info, Code: contract.CodeFreeScope,
				Message: fmt.Sprintf("scope %q names no heading of %s: icm loads the whole file", sc.Raw, rel)})
		}
	default:
		if _, err := c.docs.Select(abs, src, sc); err != nil {
			r := sc.Range
			if r.Len() == 0 {
				r = in.PathRange
			}
			// Certain, but the stage still runs: it gets the whole file.
			c.add(contract.Finding{File: st.Contract, Range: r, Severity: contract.Warning, Code: contract.CodeScopeNotFound,
				Message: fmt.Sprintf("%s: %v, so the stage gets the whole file", rel, err)})
		}
	}
}

// vendored reports whether a workspace file is part of a bundled skill
// (a skills/ folder), copied in as it came.
func vendored(rel string) bool {
	return strings.HasPrefix(rel, "skills/") || strings.Contains(rel, "/skills/")
}

// textInput reports whether an input is prose the method's reference line
// budget applies to (Markdown or plain text), not code or data.
func textInput(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".markdown", ".txt", "":
		return true
	}
	return false
}

// referenceLength holds a reference to the method's line budget, counting
// what the stage loads (the sections its scope names, or the whole file).
// A file shared from the repository above the workspace is not the
// workspace's to split: its length is a note.
func (c *checker) referenceLength(in contract.Input, rel string, src []byte, shared bool, at func(contract.Severity, string, string) *contract.Finding) {
	if lineCount(src) <= contract.MaxReferenceLines {
		return // what a scope selects is never longer than the file
	}
	loaded := string(src)
	if sc := assemble.Effective(src, in.Scope); sc != nil {
		if sel, err := assemble.Select(src, sc); err == nil {
			loaded = sel
		}
	}
	n := lineCount([]byte(loaded))
	if n <= contract.MaxReferenceLines {
		return
	}
	if shared {
		at(contract.Info, contract.CodeReferenceTooLong,
			fmt.Sprintf("shared reference %s loads %d lines; the method keeps references under %d lines: section-scope the input to load less", rel, n, contract.MaxReferenceLines))
		return
	}
	if vendored(rel) {
		// A skill bundled as it came (the template's Pattern 9) is not the
		// workspace's to split: its length is a note.
		at(contract.Info, contract.CodeReferenceTooLong,
			fmt.Sprintf("bundled skill file %s loads %d lines; the method keeps references under %d lines: section-scope the input to load less", rel, n, contract.MaxReferenceLines))
		return
	}
	what := "has"
	if loaded != string(src) {
		what = "loads"
	}
	at(contract.Warning, contract.CodeReferenceTooLong,
		fmt.Sprintf("reference %s %s %d lines; the method keeps reference files under %d lines: split it or section-scope the input", rel, what, n, contract.MaxReferenceLines))
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

// forEach checks the For each source and counts its items.
func (c *checker) forEach(sr *StageReport) bool {
	st, fe := sr.Stage, sr.Contract.ForEach
	abs, err := c.ws.Resolve(st.Dir, fe.Path)
	if err != nil {
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Error, Code: contract.CodePathEscape,
			Message: escapeMessage(err)})
		return false
	}
	rel := c.ws.Rel(abs)
	i, produced := c.producer[rel]
	src, err := c.ws.Files.ReadFile(abs)
	if produced && i >= st.Index {
		// Certain to stop the stage only while the file is not there: a
		// version of it from an earlier run gives the stage its items.
		sev := contract.Error
		if err == nil {
			sev = contract.Warning
		}
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: sev, Code: contract.CodeForEachSource,
			Message: fmt.Sprintf("For each reads %s, which stage %s writes at or after this stage; loop over an earlier output", rel, c.r.Stages[i].Stage.Name)})
		return true
	}
	if workspace.Refused(err) {
		c.refused(st, fe.PathRange, rel, err)
		return true
	}
	if err != nil {
		if produced {
			c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Info, Code: contract.CodeInputNotYet,
				Message: fmt.Sprintf("For each source %s does not exist yet; stage %s produces it", rel, c.r.Stages[i].Stage.Name),
				Data:    map[string]string{"producer": c.r.Stages[i].Stage.Name}})
			return true
		}
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Error, Code: contract.CodeForEachSource,
			Message: fmt.Sprintf("For each source %s does not exist and no earlier stage produces it", rel),
			Data:    map[string]string{"path": rel}})
		return true
	}
	if lerr := markdown.Check(textnorm.Text(src)); lerr != nil {
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Error, Code: contract.CodeTooDeep,
			Message: fmt.Sprintf("For each source %s cannot be read: %v", rel, lerr)})
		return true
	}
	sr.Items = len(Items(src))
	if sr.Items == 0 {
		// Certain: a run refuses a loop over nothing.
		c.add(contract.Finding{File: st.Contract, Range: fe.PathRange, Severity: contract.Error, Code: contract.CodeForEachSource,
			Message: fmt.Sprintf("%s has no `##` sections, so For each would run no %s", rel, fe.Item)})
	}
	return true
}

// refused reports an input icm will not read: a link out of the
// workspace, a named pipe or device, a file over the read cap. Other read
// errors are the machine's, not the contract's, and are left to the run.
func (c *checker) refused(st *workspace.Stage, at document.Range, rel string, err error) {
	if !workspace.Refused(err) {
		return
	}
	code := contract.CodeFileRefused
	var esc *workspace.EscapeError
	if errors.As(err, &esc) {
		code = contract.CodePathEscape
	}
	msg := fmt.Sprintf("input %s cannot be read: %v", rel, err)
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		msg += ": " + h.Hint()
	}
	c.add(contract.Finding{File: st.Contract, Range: at, Severity: escapeSeverity(err), Code: code,
		Message: msg, Data: map[string]string{"path": rel}})
}

func (c *checker) servers(st *workspace.Stage, k *contract.Contract) {
	if k.Tools == nil || c.ws.ConfigErr != nil {
		// Unreadable, config.toml names servers icm cannot see: which are
		// missing is not known (config.toml's own error says why).
		return
	}
	for _, s := range k.Tools.Servers {
		if !c.opts.Servers[s.Server] {
			c.add(contract.Finding{File: st.Contract, Range: s.ServerRange, Severity: contract.Error, Code: contract.CodeUnknownServer,
				Message: fmt.Sprintf("no MCP server %q is configured; add [mcp.servers.%s] to config.toml (known: %s)", s.Server, s.Server, known(c.opts.Servers))})
			continue
		}
		if c.opts.Tools == nil {
			continue
		}
		offered, ok := c.opts.Tools(s.Server)
		if !ok {
			continue
		}
		have := map[string]bool{}
		for _, t := range offered {
			have[t] = true
		}
		for _, t := range s.Tools {
			if !have[t.Name] {
				c.add(contract.Finding{File: st.Contract, Range: t.Range, Severity: contract.Error, Code: contract.CodeUnknownTool,
					Message: fmt.Sprintf("server %s has no tool %q; it offers: %s", s.Server, t.Name, strings.Join(offered, ", "))})
			}
		}
	}
}

func (c *checker) budget(st *workspace.Stage, k *contract.Contract, ctx *assemble.Context) {
	if budget := c.ws.Config.Workflow.TokenBudget; budget > 0 && ctx.Total > budget {
		// The method's 8,000 is a rule of thumb, a note; a budget the
		// workspace sets in config.toml is its own limit, a warning.
		sev, whose := contract.Warning, "the stage budget of config.toml"
		if budget == config.Defaults().Workflow.TokenBudget {
			sev, whose = contract.Info, "the method's stage budget"
		}
		c.add(contract.Finding{File: st.Contract, Range: k.TitleRange, Severity: sev, Code: contract.CodeOverBudget,
			Message: fmt.Sprintf("the assembled context is about %d tokens, over %s (%d); section-scope or trim the inputs", ctx.Total, whose, budget)})
	}
	if w := c.opts.Window; w > 0 && ctx.Total+c.opts.Reserve > w {
		fix, data := "use a model with a larger window", map[string]string(nil)
		if p := largestInput(ctx); p != nil {
			fix = fmt.Sprintf("trim or section-scope the largest input, %s (%s), or use a model with a larger window", p.Path, human.Estimate(p.Tokens))
			data = map[string]string{"largest": p.Path}
		}
		c.add(contract.Finding{File: st.Contract, Range: k.TitleRange, Severity: contract.Error, Code: contract.CodeOverWindow, Data: data,
			Message: fmt.Sprintf("the assembled context (%s) plus %s for the answer does not fit the model's window of %s: %s", human.Estimate(ctx.Total), human.Count(c.opts.Reserve), human.Tokens(w), fix)})
	}
}

// largestInput is the loaded input (layer 3 or 4) with the most tokens,
// or nil when the stage loads none.
func largestInput(ctx *assemble.Context) *assemble.Part {
	var best *assemble.Part
	for i := range ctx.Parts {
		p := &ctx.Parts[i]
		if (p.Layer == contract.LayerReference || p.Layer == contract.LayerWorking) && p.Path != "" && (best == nil || p.Tokens > best.Tokens) {
			best = p
		}
	}
	return best
}

// suggest returns the workspace file (or declared output) whose path is
// closest to rel, close enough to be a typo of it. Contracts and dot files (.gitkeep) are never
// suggested: nobody lists those as an input.
func (c *checker) suggest(rel string) string {
	if c.files == nil {
		for out := range c.producer {
			c.files = append(c.files, out)
		}
		sort.Strings(c.files)
		if c.opts.Files != nil {
			c.files = append(c.files, c.opts.Files()...)
		} else {
			c.files = append(c.files, ListFiles(c.ws)...)
		}
	}
	best, bestD := "", len(rel)/4+2
	base := path.Base(rel)
	for _, f := range c.files {
		if !suggestible(f) {
			continue
		}
		d := suggest.Distance(rel, f)
		if path.Base(f) == base {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// suggestible reports whether a workspace file may be offered in place of
// a missing input.
func suggestible(f string) bool {
	name := path.Base(f)
	if strings.HasPrefix(name, ".") || name == workspace.ContractFile {
		return false
	}
	for _, seg := range strings.Split(path.Dir(f), "/") {
		if strings.HasPrefix(seg, ".") {
			return false
		}
	}
	return true
}

// ListFiles lists a workspace's files, relative to its root with forward
// slashes, leaving out dot folders, history/ and node_modules/ (at most
// 5000). Links are listed, not followed.
func ListFiles(ws *workspace.Workspace) []string {
	var out []string
	_ = ws.Disk.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() && p != "." && (strings.HasPrefix(name, ".") || name == workspace.HistoryDir || name == "node_modules") {
			return fs.SkipDir
		}
		if !d.IsDir() && len(out) < 5000 {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// relTo writes the workspace-relative path target relative to the folder dir.
func relTo(dir, target string) string {
	r, err := filepath.Rel(filepath.FromSlash(dir), filepath.FromSlash(target))
	if err != nil {
		return target
	}
	return filepath.ToSlash(r)
}

func known(m map[string]bool) string {
	if len(m) == 0 {
		return "none"
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func lineCount(src []byte) int {
	n := strings.Count(string(src), "\n")
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

func sortFindings(fs []contract.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].File != fs[j].File {
			return fs[i].File < fs[j].File
		}
		return fs[i].Range.Start < fs[j].Range.Start
	})
}
