// Package check analyses a whole workspace: every contract's own findings
// plus what needs the other stages and the files on disk (missing inputs,
// inputs from later stages, escaping paths, For each sources, output
// conflicts, size and token budgets, unknown tool servers). `icm check` and
// the language server's diagnostics both come from Run.
package check

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/testcase"
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
	// Order is the workspace's one order of the files several stages
	// preload, which every assembly of its stages follows.
	Order *assemble.Order
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
	var sc []assemble.StageContract
	for _, sr := range r.Stages {
		if sr.Contract != nil {
			sc = append(sc, assemble.StageContract{Stage: sr.Stage, Contract: sr.Contract})
		}
	}
	r.Order = assemble.SharedOrder(c.ws, sc)
	// Every stage starts with the same identity and routing: read once.
	c.layers, _ = assemble.Layers(c.ws, opts.Estimator)
	var prev *StageReport
	for _, sr := range r.Stages {
		if sr.Contract != nil {
			c.stage(sr)
			if prev != nil {
				c.sharedOrder(prev.Stage, sr.Stage, prev.Contract, sr.Contract)
			}
			prev = sr
		}
	}
	c.cases()
	c.uneditedRouting()
	c.routingStages()
	c.textVars()
	c.conventions()
	r.Findings = settle(r.Findings)
	sortFindings(r.Findings)
	return r
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
	ctx, err := assemble.Stage(c.ws, st, k, assemble.Options{Estimator: c.opts.Estimator, AllowMissing: true, ProducedBy: c.r.ProducedBy, Layers: c.layers, Docs: c.docs, Order: c.r.Order})
	if err != nil {
		c.add(contract.Finding{File: st.Contract, Range: k.TitleRange, Severity: contract.Error, Code: contract.CodeBadInput,
			Message: fmt.Sprintf("unable to assemble the stage's context: %v", err)})
		return
	}
	sr.Context = ctx
	c.unedited(st, k, sr.Source, ctx)
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

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
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
