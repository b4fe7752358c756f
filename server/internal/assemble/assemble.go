// Package assemble is the loader: it turns a stage contract into the exact
// text the model receives. The system part is the workspace's identity
// (layer 0), its routing (layer 1) and the stage's reference material
// (layer 3, marked as constraints); the user part is the stage's Process
// and its working material (layer 4), plus the current item when the stage
// runs For each. Nothing the contract does not list is read, and the same
// files always give byte-identical text, so a model server's prompt cache
// keeps hitting.
package assemble

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/textnorm"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Roles of the two assembled parts.
const (
	RoleSystem = "system"
	RoleUser   = "user"
)

// Layer numbers used for parts that are not inputs.
const (
	LayerProcess = 2
	LayerItem    = 5
)

// Part is one piece of the assembled context.
type Part struct {
	Role  string `json:"role"`
	Layer int    `json:"layer"`
	// Label names the part: a workspace-relative path (with #Section when
	// scoped), "Process", or the For each item.
	Label string `json:"label"`
	// Path is the workspace-relative file, when the part is a file.
	Path   string `json:"path,omitempty"`
	Text   string `json:"-"`
	Tokens int    `json:"tokens"`
	Bytes  int    `json:"bytes"`
	// Missing is set when the file does not exist (yet); ProducedBy then
	// names the earlier stage whose output it is, if any.
	Missing    bool   `json:"missing,omitempty"`
	ProducedBy string `json:"produced_by,omitempty"`
	// Skipped explains a listed input that is never loaded (a non-file row,
	// a placeholder path, a binary file), or why a missing one is no error.
	Skipped string `json:"skipped,omitempty"`
	// Size is the file's size in bytes when only its path and size are
	// given (a binary file, a "path only" scope).
	Size int64 `json:"size,omitempty"`
	// Placeholder is the contract's path holding a placeholder, when this
	// part is the one file that fits it.
	Placeholder string `json:"placeholder,omitempty"`
	// Shared is set for a file read from the repository above the
	// workspace (a leading "/" in the contract): read-only.
	Shared bool `json:"shared,omitempty"`
	// Base is where the input's path was found: "stage folder",
	// "workspace root", "stages folder" or "repository root".
	Base string `json:"base,omitempty"`
	// Includes are the files an identity or routing file's `@path` lines
	// brought in, workspace-relative.
	Includes []string `json:"includes,omitempty"`
	// Unscoped says why the scope the contract gives was not applied (a
	// heading the file lacks): the whole file is loaded.
	Unscoped string `json:"unscoped,omitempty"`
}

// Context is an assembled stage context.
type Context struct {
	Stage  string `json:"stage"`
	System string `json:"system"`
	User   string `json:"user"`
	Parts  []Part `json:"parts"`
	// SystemTokens and UserTokens count the two texts as sent, framing
	// headings included; Total is their sum.
	SystemTokens int    `json:"system_tokens"`
	UserTokens   int    `json:"user_tokens"`
	Total        int    `json:"total_tokens"`
	Estimator    string `json:"estimator"`
	// Item is the For each item this context is for, if any.
	Item string `json:"item,omitempty"`
	// UnsetVars are the setup-time variables ({{NAME}}) the assembled text
	// holds as written because [vars] gives them no value.
	UnsetVars []string `json:"unset_vars,omitempty"`
	// Readable are the files and folders the contract names that exist:
	// the model may read them (icm's read tool), and the loaded ones are
	// in the prompt already.
	Readable []Readable `json:"readable,omitempty"`
	// ReadTool is set when the call offers icm's read tool: the model
	// may call tools and the contract names something the prompt does
	// not hold whole (listed under "Files you may read").
	ReadTool bool `json:"read_tool,omitempty"`
}

// Options change what is assembled.
type Options struct {
	// Estimator counts tokens; nil means tokens.Default.
	Estimator tokens.Estimator
	// AllowMissing assembles even when inputs are missing, marking them
	// (for previews); otherwise a missing input is an error.
	AllowMissing bool
	// Item, when set, is the For each item to append to the user text.
	Item *markdown.Item
	// ItemIndex is the item's 1-based position; ItemCount the total.
	ItemIndex, ItemCount int
	// Siblings are the other items' titles, listed so items don't overlap.
	Siblings []string
	// ProducedBy maps workspace-relative output paths to the stage that
	// declares them, to explain missing inputs.
	ProducedBy map[string]string
	// Layers are the identity and routing parts (Layers) when the caller
	// read them already; nil reads them.
	Layers *LayerParts
	// Docs remembers the Markdown of the files a pass parses (a check
	// assembling every stage reads the same references again); nil
	// parses each time.
	Docs *Docs
	// WriteMode is how the model writes the files of a stage whose
	// outputs it names (a writeout mode; "" means the write tool): the
	// contract's Outputs section says so.
	WriteMode string
	// NoReadTool assembles for a model that calls no tools: it gets what
	// icm loaded, and no list of files to read.
	NoReadTool bool
	// Order is the workspace's one order of the files several stages
	// preload (SharedOrder; check.Report.Order); nil works it out from
	// the contracts on disk.
	Order *Order
}

// MissingError says an input file does not exist.
type MissingError struct {
	Stage, Path, ProducedBy string
	// Contract is the stage's contract, which names the input.
	Contract string
	// OutsideGit is set for a shared input (a leading /) of a workspace in
	// no git repository, read from the workspace alone: the file may well
	// be in the repository above, which the person has not named.
	OutsideGit bool
}

func (e *MissingError) Error() string {
	if e.OutsideGit {
		return fmt.Sprintf("stage %s: input %s is not in the workspace; %s", e.Stage, e.Path, workspace.OutsideGitShared)
	}
	if e.ProducedBy != "" {
		return fmt.Sprintf("stage %s: input %s does not exist yet; stage %s produces it: run and approve that stage first", e.Stage, e.Path, e.ProducedBy)
	}
	return fmt.Sprintf("stage %s: input %s does not exist; create it or fix the path in the contract", e.Stage, e.Path)
}

// Fault is a stage that cannot run without the input: the stage that
// produces it has not run, or the contract names a file that is not there.
func (e *MissingError) Fault() *fault.Error {
	if e.ProducedBy != "" {
		f := fault.NotRun(e.ProducedBy).In(e.Stage).WithHint("run stage %s and approve its output, then this stage", e.ProducedBy)
		f.Msg = e.Error()
		return f
	}
	f := fault.ContractInvalid(e.Stage, e.Contract, 0, nil).WithHint("create the input, or fix its path in the stage's contract")
	if e.OutsideGit {
		f.Hint = "name the repository the workspace is in, or copy the file into the workspace"
	}
	f.Msg = e.Error()
	return f
}

// Stage assembles the context of one stage.
func Stage(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, opts Options) (*Context, error) {
	est := opts.Estimator
	if est == nil {
		est = tokens.Default
	}
	a := &assembler{ws: ws, st: st, est: est, opts: opts, ctx: &Context{Stage: st.Name, Estimator: est.Name()}, layered: map[string]int{}}
	if err := a.build(c); err != nil {
		return nil, err
	}
	return a.ctx, nil
}

type assembler struct {
	ws   *workspace.Workspace
	st   *workspace.Stage
	est  tokens.Estimator
	opts Options
	ctx  *Context
	vars contract.Vars
	// layered maps the identity and routing files loaded (absolute) to
	// their layer: an input naming one is not loaded twice.
	layered map[string]int
	// order is the workspace's order of shared files.
	order *Order
}

// text is what the model reads of a file's text: optional blocks applied
// and setup-time variables filled; the names left unset are remembered.
func (a *assembler) text(s string) string {
	out, unset := a.vars.ApplyText(s)
	for _, n := range unset {
		if !containsString(a.ctx.UnsetVars, n) {
			a.ctx.UnsetVars = append(a.ctx.UnsetVars, n)
		}
	}
	return out
}

func (a *assembler) build(c *contract.Contract) error {
	var system, user []string
	a.vars = contract.Vars(a.ws.Vars)
	if a.order = a.opts.Order; a.order == nil {
		a.order = orderOf(a.ws)
	}
	layers := a.opts.Layers
	if layers == nil {
		var err error
		if layers, err = Layers(a.ws, a.est); err != nil {
			return err
		}
	}
	for _, p := range layers.parts {
		a.ctx.Parts = append(a.ctx.Parts, p)
		a.layered[filepath.Join(a.ws.Root, p.Path)] = p.Layer
		system = append(system, p.Text)
	}
	for _, n := range layers.unset {
		if !containsString(a.ctx.UnsetVars, n) {
			a.ctx.UnsetVars = append(a.ctx.UnsetVars, n)
		}
	}
	// The contract is layer 2, given as the instructions: an input naming
	// it (an author's own layer table lists it) is not loaded again.
	a.layered[a.st.Contract] = contract.LayerContract

	refs, err := a.inputs(c, contract.LayerReference, RoleSystem)
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		system = append(system, "# Reference material\n\nRules and background for this stage. Follow them as constraints.\n\n"+strings.Join(refs, "\n\n"))
	}

	whole := wholeContract(c)
	at := len(a.ctx.Parts)
	if !whole {
		process := a.authored(c.Instructions())
		if process != "" {
			a.add(Part{Role: RoleUser, Layer: LayerProcess, Label: "Process", Path: a.ws.Rel(c.File), Text: process})
			user = append(user, process)
		}
	}
	work, err := a.inputs(c, contract.LayerWorking, RoleUser)
	if err != nil {
		return err
	}
	a.readable(c)
	if whole {
		// The contract names what was loaded, so it is written once the
		// inputs are in, and stands where the Process would.
		text := a.contractText(c, a.ctx.Parts, a.opts.WriteMode)
		if text != "" {
			a.add(Part{Role: RoleUser, Layer: LayerProcess, Label: contractLabel, Path: a.ws.Rel(c.File), Text: text})
			last := a.ctx.Parts[len(a.ctx.Parts)-1]
			copy(a.ctx.Parts[at+1:], a.ctx.Parts[at:len(a.ctx.Parts)-1])
			a.ctx.Parts[at] = last
			user = append(user, text)
		}
	}
	if len(work) > 0 {
		user = append(user, "# Working material\n\nThe material this stage works on.\n\n"+strings.Join(work, "\n\n"))
	}
	if block := a.readBlock(); block != "" {
		a.add(Part{Role: RoleUser, Layer: LayerProcess, Label: readLabel, Text: block})
		user = append(user, block)
	}
	if it := a.opts.Item; it != nil {
		block := a.itemBlock(c, it)
		a.ctx.Item = it.Title
		a.add(Part{Role: RoleUser, Layer: LayerItem, Label: itemName(c) + ": " + it.Title, Text: block})
		user = append(user, block)
	}

	a.ctx.System = strings.Join(system, "\n\n") + "\n"
	a.ctx.User = strings.Join(user, "\n\n") + "\n"
	a.ctx.SystemTokens = a.est.Count(a.ctx.System)
	a.ctx.UserTokens = a.est.Count(a.ctx.User)
	a.ctx.Total = a.ctx.SystemTokens + a.ctx.UserTokens
	return nil
}

// inputs loads the inputs of one layer and returns their blocks, each under
// its workspace-relative path: the files several stages share first, in
// the workspace's one order (order.go), then the stage's own.
func (a *assembler) inputs(c *contract.Contract, layer int, role string) ([]string, error) {
	var blocks []string
	for _, in := range a.order.Sorted(a.ws, a.st, c.Inputs, layer) {
		if in.NonFile {
			a.add(Part{Role: role, Layer: layer, Label: in.What, Skipped: "not a file"})
			continue
		}
		loc, err := LocateWith(a.ws, a.st, in, a.produced)
		if err != nil {
			if !a.opts.AllowMissing {
				return nil, fmt.Errorf("stage %s: input %s: %w", a.st.Name, in.Path, err)
			}
			a.add(Part{Role: role, Layer: layer, Label: in.Path, Skipped: "the path leaves the workspace"})
			continue
		}
		if len(loc.Unset) > 0 {
			a.add(Part{Role: role, Layer: layer, Label: loc.Rel, Path: loc.Rel, Skipped: fmt.Sprintf("the path needs %s, which [vars] in config.toml does not set", varList(loc.Unset))})
			continue
		}
		if l, ok := a.layered[loc.Abs]; ok && loc.Exists && !loc.Dir {
			a.add(Part{Role: role, Layer: layer, Label: loc.Rel, Path: loc.Rel, Base: string(loc.Base), Skipped: fmt.Sprintf("already loaded as layer %d", l)})
			continue
		}
		if !loc.Exists {
			block, err := a.absent(in, loc, role, layer)
			if err != nil {
				return nil, err
			}
			if block != "" {
				blocks = append(blocks, block)
			}
			continue
		}
		if loc.Dir && len(loc.Files) == 0 {
			p := Part{Role: role, Layer: layer, Label: loc.Rel + "/", Path: loc.Rel, Skipped: "empty folder"}
			if producer := a.producerOf(loc.Rel); producer != "" {
				p.Skipped, p.Missing, p.ProducedBy = "", true, producer
			}
			a.add(p)
			continue
		}
		single := !loc.Dir && !in.Glob
		loaded := 0
		for i, f := range loc.Files {
			if !single && loaded >= MaxFolderBytes {
				// Said, not silent: the context holds only part of the folder.
				a.add(Part{Role: role, Layer: layer, Label: loc.Rel + "/", Path: loc.Rel, Base: string(loc.Base),
					Skipped: fmt.Sprintf("only its first %d of %d files are loaded (%s, the most a folder or pattern input loads)", i, len(loc.Files), byteSize(MaxFolderBytes))})
				break
			}
			block, err := a.file(in, loc, f, single, role, layer)
			if err != nil {
				return nil, err
			}
			loaded += a.ctx.Parts[len(a.ctx.Parts)-1].Bytes
			blocks = append(blocks, block)
		}
		if loc.More && loaded < MaxFolderBytes {
			// Said, not silent: the context holds only part of the folder.
			a.add(Part{Role: role, Layer: layer, Label: loc.Rel + "/", Path: loc.Rel, Base: string(loc.Base),
				Skipped: fmt.Sprintf("only its first %d files are loaded", maxFolderFiles)})
		}
	}
	return blocks, nil
}

// file loads one file of an input: the whole file, the part its scope
// names (single-file inputs only), or for a binary file (or a "path only"
// scope) just its path and size.
func (a *assembler) file(in contract.Input, loc *Located, abs string, single bool, role string, layer int) (string, error) {
	rel := a.ws.InputRel(abs)
	src, err := a.ws.ReadInput(abs)
	if err != nil {
		if b, ok := a.refused(role, layer, rel, err); ok {
			return b, nil
		}
		return "", fmt.Errorf("unable to read input %s: %w", rel, err)
	}
	p := Part{Role: role, Layer: layer, Label: rel, Path: rel, Shared: loc.Shared, Base: string(loc.Base)}
	if in.Templated {
		p.Placeholder = loc.Rel
	}
	binary := document.IsBinary(src)
	if pathOnly := single && in.Scope != nil && in.Scope.PathOnly; pathOnly || binary {
		p.Size = int64(len(src))
		p.Skipped = fmt.Sprintf("binary file, %s: path and size only", byteSize(len(src)))
		if !binary {
			p.Skipped = fmt.Sprintf("path only, as the contract asks (%s)", byteSize(len(src)))
		}
		p.Text = fmt.Sprintf("(%s; the content is not shown)", strings.TrimSuffix(p.Skipped, ": path and size only"))
		a.add(p)
		return "## " + rel + "\n\n" + p.Text, nil
	}
	// What the model reads: no byte order mark, LF line endings, and in a
	// text file its optional blocks applied and variables filled.
	src = textnorm.Text(src)
	if textFile(abs) && bytes.Contains(src, []byte("{{")) {
		src = []byte(a.text(string(src)))
	}
	if len(bytes.TrimSpace(src)) == 0 {
		p.Skipped = "the file is empty"
		a.add(p)
		return "## " + rel + "\n\n(empty)", nil
	}
	var scope *contract.Scope
	if single {
		scope = a.opts.Docs.Effective(abs, src, in.Scope)
	}
	if scope != nil && !scope.FreeText {
		p.Label += "#" + strings.Join(scope.Headings, "|")
	}
	text, err := a.opts.Docs.Select(abs, src, scope)
	if err != nil {
		// A heading the file lacks: the model reads the whole file (check
		// warns), never nothing.
		p.Label, p.Unscoped = rel, err.Error()
		text = strings.TrimSpace(string(src))
	}
	p.Text = text
	a.add(p)
	return "## " + p.Label + "\n\n" + text, nil
}

// absent records an input that is not there: a placeholder no file fits
// yet, a glob that matches nothing, an optional input or the stage's own
// previous output (neither is an error), or a missing file.
func (a *assembler) absent(in contract.Input, loc *Located, role string, layer int) (string, error) {
	p := Part{Role: role, Layer: layer, Label: loc.Rel, Path: loc.Rel, Base: string(loc.Base)}
	switch {
	case in.Templated && !in.Glob && len(loc.Matches) > 1:
		p.Skipped = fmt.Sprintf("path holds a placeholder that %d files fit (%s); name one", len(loc.Matches), strings.Join(loc.Matches, ", "))
		a.add(p)
		return "", nil
	case in.Templated:
		p.Skipped = "path holds a placeholder and no file fits it yet"
		if producer := PatternProducer(a.opts.ProducedBy, loc.Rel); producer != "" {
			p.Skipped += " (stage " + producer + " writes it)"
		}
		a.add(p)
		return "", nil
	case loc.Own:
		p.Missing, p.Skipped = true, "no previous version yet"
		a.add(p)
		return "", nil
	case in.Optional:
		p.Missing, p.Skipped = true, "optional, not there"
		a.add(p)
		return "", nil
	}
	producer := a.producerOf(loc.Rel)
	if in.Embedded && producer == "" && !in.Glob {
		// A path read from among other words, that no stage writes: that
		// it is an input is icm's guess (check says so in a note), so the
		// stage runs without it.
		p.Missing, p.Skipped = true, "named among other words, not there"
		a.add(p)
		return "", nil
	}
	if !a.opts.AllowMissing && a.stops(in, producer) {
		return "", &MissingError{Stage: a.st.Name, Path: loc.Rel, ProducedBy: producer, Contract: a.st.Contract,
			OutsideGit: producer == "" && a.ws.SharedFromItself(in.Path)}
	}
	note := "(missing)"
	if in.Glob {
		p.Skipped, note = "no file matches", "(no file matches)"
	}
	if producer != "" {
		note = "(not produced yet: stage " + producer + " writes it)"
	}
	p.Missing, p.ProducedBy = true, producer
	if in.Scope != nil && !in.Scope.FreeText && !in.Scope.PathOnly {
		p.Label += "#" + strings.Join(in.Scope.Headings, "|")
	}
	a.add(p)
	return "## " + p.Label + "\n\n" + note, nil
}

// stops reports whether a missing input stops a run: a plain path that
// no stage writes (check's error), or the output of an earlier stage that
// has not written it yet. A pattern, a folder, a brace list or a later
// stage's output that is not there is read as missing (check warns).
func (a *assembler) stops(in contract.Input, producer string) bool {
	if producer == "" {
		return in.Plain()
	}
	st, err := a.ws.Stage(producer)
	return err == nil && st.Index < a.st.Index
}

// producerOf names the earlier stage whose output rel is (or lies in,
// for a folder or a placeholder, or matches, for a glob), or "".
func (a *assembler) producerOf(rel string) string {
	if p, ok := Producer(a.opts.ProducedBy, rel); ok {
		return p
	}
	if strings.ContainsAny(rel, "*?") {
		if p := GlobProducer(a.opts.ProducedBy, rel); p != "" {
			return p
		}
	}
	if st := a.ws.StageOf(a.ws.Abs(rel)); st != nil && st.Index < a.st.Index && rel == path.Join(st.Rel, workspace.OutputDir) {
		return st.Name
	}
	return ""
}

// byteSize writes n bytes for people: "812 bytes", "2.2 KB", "3.4 MB".
func byteSize(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1000/1000)
	}
}

func (a *assembler) itemBlock(c *contract.Contract, it *markdown.Item) string {
	name := itemName(c)
	var b strings.Builder
	fmt.Fprintf(&b, "# The %s to work on now", name)
	if a.opts.ItemCount > 0 {
		fmt.Fprintf(&b, " (%d of %d)", a.opts.ItemIndex, a.opts.ItemCount)
	}
	fmt.Fprintf(&b, "\n\n## %s\n\n%s", it.Title, it.Body)
	if len(a.opts.Siblings) > 0 {
		fmt.Fprintf(&b, "\n\n# The other %ss\n\nThese are handled in separate calls; do not cover them here:\n", name)
		for _, s := range a.opts.Siblings {
			fmt.Fprintf(&b, "\n- %s", s)
		}
	}
	return b.String()
}

func itemName(c *contract.Contract) string {
	if c.ForEach != nil && c.ForEach.Item != "" {
		return c.ForEach.Item
	}
	return "item"
}

func (a *assembler) add(p Part) {
	p.Tokens = a.est.Count(p.Text)
	p.Bytes = len(p.Text)
	a.ctx.Parts = append(a.ctx.Parts, p)
}

// LayerParts are the parts every stage of a workspace starts with: its
// identity (layer 0) and routing (layer 1) files, read and counted once.
type LayerParts struct {
	parts []Part
	unset []string
}

// Layers reads the workspace's identity and routing files as every stage
// loads them (includes followed, placeholders applied) and counts them:
// a check assembling every stage reads them once.
func Layers(ws *workspace.Workspace, est tokens.Estimator) (*LayerParts, error) {
	if est == nil {
		est = tokens.Default
	}
	l := &LayerParts{}
	vars := contract.Vars(ws.Vars)
	for _, f := range []struct {
		name  string
		layer int
	}{{ws.Identity, contract.LayerIdentity}, {workspace.RoutingFile, contract.LayerRouting}} {
		if f.name == "" {
			continue // no identity file: the stage runs without layer 0
		}
		text, incs, err := Layered(ws, f.name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("unable to read %s: %w", f.name, err)
		}
		if f.layer == contract.LayerIdentity {
			text, incs = followPointer(ws, f.name, text, incs)
		}
		text, unset := vars.ApplyText(text)
		for _, n := range unset {
			if !containsString(l.unset, n) {
				l.unset = append(l.unset, n)
			}
		}
		t := strings.TrimSpace(text)
		p := Part{Role: RoleSystem, Layer: f.layer, Label: f.name, Path: f.name, Text: t, Tokens: est.Count(t), Bytes: len(t)}
		for _, inc := range incs {
			if inc.Err == nil {
				p.Includes = append(p.Includes, inc.Rel)
			}
		}
		l.parts = append(l.parts, p)
	}
	return l, nil
}

// maxFolderFiles bounds how many files a folder or glob input loads.
const maxFolderFiles = workspace.MaxFolderFiles

// MaxFolderBytes bounds the text one folder or glob input loads: a folder
// input naming a whole project (or "../../") loads its first files up to
// this size, and says so.
const MaxFolderBytes = 128 << 10

// produced reports whether a stage declares rel as its output (or a
// folder holding it).
func (a *assembler) produced(rel string) bool {
	_, ok := Producer(a.opts.ProducedBy, rel)
	return ok
}

// textFile reports whether a file is text that placeholders may fill
// (Markdown, plain text): code and data files are sent as they are.
func textFile(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".markdown", ".txt", "":
		return true
	}
	return false
}

// varList writes variable names as placeholders: "{{A}}", "{{A}} and {{B}}".
func varList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "{{" + n + "}}"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// refused handles an input file icm will not read (a named pipe, a file
// over the read cap, a link out of the workspace): for a preview it is a
// part that says why in place of the text; a run gets the error. ok is
// false for any other error.
func (a *assembler) refused(role string, layer int, rel string, err error) (string, bool) {
	if !workspace.Refused(err) || !a.opts.AllowMissing {
		return "", false
	}
	a.add(Part{Role: role, Layer: layer, Label: rel, Path: rel, Skipped: err.Error()})
	return "## " + rel + "\n\n(not loaded: " + err.Error() + ")", true
}

// Select returns the part of a Markdown file a scope names: the whole
// file when scope is nil or free text, one or more headings' sections, or
// everything from one heading through the end of another.
func Select(src []byte, scope *contract.Scope) (string, error) {
	return (*Docs)(nil).Select("", src, scope)
}

// Select is Select with the file's parsed Markdown remembered under abs
// (and its content) for the pass.
func (d *Docs) Select(abs string, src []byte, scope *contract.Scope) (string, error) {
	src = textnorm.Text(src)
	if scope == nil || scope.FreeText || len(scope.Headings) == 0 {
		return strings.TrimSpace(string(src)), nil
	}
	doc := d.Parse(abs, src)
	if doc.Err != nil {
		return "", fmt.Errorf("unable to find its sections: %w", doc.Err)
	}
	find := func(h string) (int, error) {
		i := findHeading(doc, h)
		if i < 0 {
			return 0, fmt.Errorf("no heading %q in the file", h)
		}
		return i, nil
	}
	if scope.Through {
		from, err := find(scope.Headings[0])
		if err != nil {
			return "", err
		}
		to, err := find(scope.Headings[1])
		if err != nil {
			return "", err
		}
		if to < from {
			from, to = to, from
		}
		start, end := doc.HeadingSpan(from).Start, doc.HeadingSpan(to).End
		return strings.TrimSpace(string(src[start:end])), nil
	}
	var parts []string
	taken := map[int]bool{}
	for _, h := range scope.Headings {
		i, err := find(h)
		if err != nil {
			return "", err
		}
		if taken[i] {
			continue // two names for one heading: its text once
		}
		taken[i] = true
		r := doc.HeadingSpan(i)
		parts = append(parts, strings.TrimSpace(string(src[r.Start:r.End])))
	}
	return strings.Join(parts, "\n\n"), nil
}

// Note says why a part has no text ("not produced yet: 02-research",
// "missing", "not loaded: not a file"), or "" for a loaded part.
func (p Part) Note() string {
	switch {
	case p.Missing && p.ProducedBy != "":
		return "not produced yet: " + p.ProducedBy
	case p.Missing && p.Skipped != "":
		return "missing: " + p.Skipped
	case p.Missing:
		return "missing"
	case p.Skipped != "":
		return "not loaded: " + p.Skipped
	case p.Unscoped != "":
		return "whole file: " + p.Unscoped
	case p.Placeholder != "":
		return "fits " + p.Placeholder
	case p.Shared:
		return "shared, read-only"
	}
	return ""
}

// LayerName is the part's layer as tables show it: a number, or "item".
func (p Part) LayerName() string {
	if p.Layer == LayerItem {
		return "item"
	}
	return fmt.Sprint(p.Layer)
}

// Framing is the token count of the headings and separators the loader
// adds around the parts: the total less the parts' own counts.
func (c *Context) Framing() int {
	sum := 0
	for _, p := range c.Parts {
		sum += p.Tokens
	}
	return c.Total - sum
}
