package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/workspace"
)

var (
	numbered  = regexp.MustCompile(`^(\d+)[-_](.+)$`)
	plainName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
)

// stageName numbers a stage name that has no number yet ("review" with
// next 3 is "03-review") and checks it is a usable folder name.
func stageName(name string, next int) (string, error) {
	name = strings.TrimSpace(name)
	bare := name
	if m := numbered.FindStringSubmatch(name); m != nil {
		bare = m[2]
	}
	if !plainName.MatchString(bare) {
		return "", fault.InvalidRequest(fmt.Sprintf("stage name %q: use lower-case letters, digits, - and _ (e.g. review or 03-review)", name),
			"name the stage with lower-case letters, digits, - and _")
	}
	if bare != name {
		return name, nil
	}
	return fmt.Sprintf("%02d-%s", next, name), nil
}

// NumberInUseError is a new stage named with the number of a stage the
// workspace has; Free is the name with the next free number.
type NumberInUseError struct {
	Name, Stage, Free string
}

func (e *NumberInUseError) Error() string {
	return fmt.Sprintf("stage %s would share its number with stage %s", e.Name, e.Stage)
}

// Fault is a request for a name the workspace cannot take, with the free
// one to use (the CLI words the fix as its command).
func (e *NumberInUseError) Fault() *fault.Error {
	return fault.InvalidRequest(e.Error(), "use the next free number: "+e.Free)
}

// NewStage adds a stage after the last one: a numbered folder with a
// contract skeleton that reads the previous stage's output (or an input.md
// of its own when it is the first stage), and a line for it in the
// routing file's stage list.
func NewStage(ws *workspace.Workspace, name string) (*Result, error) {
	next := 1
	var prev *workspace.Stage
	for _, st := range ws.Stages {
		next = max(next, st.Number+1)
		prev = st
	}
	full, err := stageName(name, next)
	if err != nil {
		return nil, err
	}
	for _, st := range ws.Stages {
		if st.Name == full {
			return nil, fault.InvalidRequest(fmt.Sprintf("stage %s already exists in %s", full, ws.Rel(st.Dir)), "choose a name no stage has")
		}
	}
	m := numbered.FindStringSubmatch(full)
	bare := m[2]
	// Two stages of one number run in an order their names decide, and
	// the routing file's list says another: a number is one stage's.
	if n, err := strconv.Atoi(m[1]); err == nil {
		for _, st := range ws.Stages {
			if st.Number == n && st.Sub == "" {
				return nil, &NumberInUseError{Name: full, Stage: st.Name, Free: fmt.Sprintf("%0*d-%s", max(2, len(m[1])), next, bare)}
			}
		}
	}
	res := &Result{Root: ws.Root, Stage: path.Join(ws.StagesDir, full)}
	w := &writer{res: res}
	defer w.close()
	d := stageData{
		Stage:        full,
		StagePurpose: contract.SkeletonPurpose,
		Output:       bare + ".md",
		Process:      contract.SkeletonProcess,
	}
	needInput := true
	if prev != nil {
		if out := firstOutput(ws, prev); out != "" {
			d.Input = "../" + prev.Name + "/" + out
			needInput = false
		}
	}
	if needInput {
		d.Input = "input.md"
	}
	d.Reference = "../../_config/style.md"
	if _, err := ws.Disk.Stat(filepath.Join(ws.Root, "_config", "style.md")); err != nil {
		// The skeleton reads the style guide icm init writes; a workspace
		// without one gets a reference file of its own to fill in.
		d.Reference = "references/notes.md"
		if err := w.write(path.Join(res.Stage, "references", "notes.md"), []byte("# Notes\n\nReference material this stage follows on every run (layer 3).\n")); err != nil {
			return nil, err
		}
	}
	contractText, err := render("stage.md.tmpl", d)
	if err != nil {
		return nil, err
	}
	if err := w.write(path.Join(res.Stage, workspace.ContractFile), contractText); err != nil {
		return nil, err
	}
	if needInput {
		data, err := render("input.md.tmpl", d)
		if err != nil {
			return nil, err
		}
		if err := w.write(path.Join(res.Stage, "input.md"), data); err != nil {
			return nil, err
		}
	}
	if err := addRoute(ws, full, d.StagePurpose); err != nil {
		return res, err
	}
	return res, nil
}

// firstOutput is the first output of a stage with a concrete file name,
// relative to the stage folder ("output/draft.md"), or "".
func firstOutput(ws *workspace.Workspace, st *workspace.Stage) string {
	src, err := ws.Files.ReadFile(st.Contract)
	if err != nil {
		return ""
	}
	if o, ok := contract.ParseWith(st.Contract, src, contract.Options{Vars: ws.Vars}).ModelOutput(); ok {
		return o.Path
	}
	return ""
}

var listItem = regexp.MustCompile(`^(\s*)(\d+)([.)])\s|^(\s*)([-*+])\s`)

// addRoute adds a stage to the routing file (CONTEXT.md at the root):
// after the last list item that names a stage folder, in the same list
// style, or in a new "## Stages" section when there is no such list.
func addRoute(ws *workspace.Workspace, stage, purpose string) error {
	p := filepath.Join(ws.Root, workspace.RoutingFile)
	data, err := ws.Disk.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unable to read the routing file %s: %w", p, err)
	}
	text := string(data)
	updated := insertRoute(text, stageNames(ws), stage, purpose)
	if err := ws.Disk.WriteFile(p, []byte(updated), 0o644); err != nil {
		return fmt.Errorf("unable to update the routing file %s: %w", p, err)
	}
	return nil
}

func stageNames(ws *workspace.Workspace) []string {
	var out []string
	for _, st := range ws.Stages {
		out = append(out, st.Name)
	}
	return out
}

// insertRoute returns text with a list item for stage added.
func insertRoute(text string, stages []string, stage, purpose string) string {
	lines := strings.Split(text, "\n")
	last := -1
	var m []string
	for i, l := range lines {
		mm := listItem.FindStringSubmatch(l)
		if mm == nil {
			continue
		}
		for _, s := range stages {
			if strings.Contains(l, s) {
				last, m = i, mm
				break
			}
		}
	}
	entry := fmt.Sprintf("`%s`: %s", stage, purpose)
	if last < 0 {
		body := strings.TrimRight(text, "\n")
		if body != "" {
			body += "\n\n"
		}
		return body + "## Stages\n\n1. " + entry + "\n"
	}
	// Skip the item's continuation lines (indented, not a new item).
	end := last + 1
	for end < len(lines) && strings.TrimSpace(lines[end]) != "" && listItem.FindStringSubmatch(lines[end]) == nil &&
		(strings.HasPrefix(lines[end], " ") || strings.HasPrefix(lines[end], "\t")) {
		end++
	}
	var item string
	if m[2] != "" {
		n, _ := strconv.Atoi(m[2])
		item = fmt.Sprintf("%s%d%s %s", m[1], n+1, m[3], entry)
	} else {
		item = fmt.Sprintf("%s%s %s", m[4], m[5], entry)
	}
	out := append(append(append([]string(nil), lines[:end]...), item), lines[end:]...)
	return strings.Join(out, "\n")
}
