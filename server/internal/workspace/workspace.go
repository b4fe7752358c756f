// Package workspace finds an ICM workspace on disk, lists its stages in
// order and resolves paths, refusing any that would leave the workspace.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/fault"
)

// Names of the files and folders that give a workspace its shape.
const (
	IdentityFile = "CLAUDE.md"  // layer 0
	RoutingFile  = "CONTEXT.md" // layer 1 at the root, layer 2 in a stage
	ContractFile = "CONTEXT.md"
	OutputDir    = "output"
	ProposedDir  = "proposed"
	HistoryDir   = "history"
	ConfigDir    = "_config"
)

// stageDirs are the folders that hold stages: icm's own layout first, then
// the public ICM template's.
var stageDirs = []string{"pipeline", "stages"}

// stagePattern matches a stage folder: a number, an optional letter for
// a stage inserted between two others ("01b-flow"), a dash or an
// underscore and a name ("01-scope", "01_scope"), perhaps after a
// "stage-" prefix ("stage-01-scope").
var stagePattern = regexp.MustCompile(`^(?i:stage[-_]?)?(\d+)([a-z]?)[-_](.+)$`)

// Workspace is an opened workspace.
type Workspace struct {
	// Root is the absolute path of the workspace folder, symlinks resolved.
	Root string
	// StagesDir is the folder holding the stages, relative to Root
	// ("pipeline", or "stages" for ICM-template workspaces).
	StagesDir string
	// StagesFrom says how StagesDir was chosen: StagesConfigured,
	// StagesDefault, StagesRoot ("." : the workspace root), StagesFound,
	// or "" when the workspace has no stages folder (StagesDir is then
	// "pipeline").
	StagesFrom string
	// StagesWhy says which layout icm took and why, when another was
	// there too (a stages/ folder of outputs beside numbered folders at
	// the root); "" when there was no other.
	StagesWhy string
	// Identity is the layer-0 file in use (one of IdentityFiles), or ""
	// when the workspace has none.
	Identity string
	// Nested lists, when the folder has no stages, the workspaces below
	// it (a repository root holding several), relative to Root.
	Nested []string
	// Stages are in folder order.
	Stages []*Stage
	// Config is config.toml over the defaults.
	Config config.Config
	// Vars are the setup-time variables of [vars], as text.
	Vars map[string]string
	// ConfigErr is set when config.toml could not be read; Config then holds defaults.
	ConfigErr error
	// Files reads file contents; the language server overlays unsaved buffers.
	// Unless overlaid it is Disk.
	Files Files
	// Disk is the workspace folder opened for contained access: every read
	// and write of the workspace's files on disk goes through it.
	Disk *Root
	// Repository is the repository root above the workspace that shared
	// inputs (a leading "/", or ".." climbing out) are read from, read-only;
	// "" when there is none.
	Repository string
	// RepositoryIsGit is set when Repository was found by its .git.
	RepositoryIsGit bool
	// RepositoryFrom says how Repository was found: RepositoryGit,
	// RepositoryNamed (--repo DIR or ICM_REPO), or "" when there is none
	// (outside git, shared paths stay inside the workspace).
	RepositoryFrom string
	// above are the folders from the workspace's parent up to Repository,
	// nearest first; repo is Repository opened read-only.
	above []string
	repo  *Root
	// memo, when set, remembers how paths resolved (Pass).
	memo *resolveMemo
	// Escapes lists the folders of the workspace's layout (the stages
	// folder, a stage folder) that are symbolic links leading outside it.
	// They are left out of Stages (nothing outside is read) and check
	// reports each.
	Escapes []*EscapeError
}

// Stage is one numbered stage folder.
type Stage struct {
	// Name is the folder name, e.g. "01-scope".
	Name string
	// Number is the folder's numeric prefix.
	Number int
	// Sub is the letter after the number, for a stage inserted between two
	// others ("b" of "01b-flow"), or "".
	Sub string
	// Index is the stage's position in Workspace.Stages.
	Index int
	// Dir is the absolute folder path.
	Dir string
	// Rel is Dir relative to the workspace root, with forward slashes.
	Rel string
	// Contract is the absolute path of the stage's CONTEXT.md.
	Contract string
	// Escape is set when the stage folder is a symbolic link that leads
	// outside the workspace: the stage is listed (so it is not silently
	// missing) but nothing of it is read.
	Escape *EscapeError
}

// ContractRel returns the contract's path relative to the workspace root.
func (s *Stage) ContractRel() string { return s.Rel + "/" + ContractFile }

// NotFoundError says no workspace was found from a folder.
type NotFoundError struct {
	From string
	// Inside lists the workspaces below From (absolute): a person who
	// names the folder above a workspace is told which one it holds.
	Inside []string
}

func (e *NotFoundError) Error() string {
	if len(e.Inside) > 0 {
		return fmt.Sprintf("%s is not an icm workspace, but it holds %s", e.From, plural(len(e.Inside), "one", "some")+": "+strings.Join(e.Inside, ", "))
	}
	return fmt.Sprintf("no icm workspace at %s or above it", e.From)
}

// Hint tells the person what makes a folder a workspace, or which
// workspace inside it to name.
func (e *NotFoundError) Hint() string {
	if len(e.Inside) > 0 {
		return "name the workspace itself: -w " + e.Inside[0]
	}
	return "run icm inside a workspace (a folder with CLAUDE.md or AGENTS.md, or CONTEXT.md beside pipeline/ or stages/, or a stages/ holding numbered folders with a CONTEXT.md), or pass -w DIR"
}

// Fault is a workspace the request named that is not there.
func (e *NotFoundError) Fault() *fault.Error { return fault.NotFound(e.Error(), e.Hint()) }

// plural is one when n is 1, else some.
func plural(n int, one, some string) string {
	if n == 1 {
		return one
	}
	return some
}

// FileNotFolderError says -w named a file where a workspace folder goes.
type FileNotFolderError struct {
	Path string
	// Workspace is the workspace holding the file, or its folder when
	// none does.
	Workspace string
}

func (e *FileNotFolderError) Error() string {
	return fmt.Sprintf("unable to open workspace %s: it is a file, not a folder", e.Path)
}

// Hint names the folder to give instead.
func (e *FileNotFolderError) Hint() string {
	return "a workspace is a folder: -w " + e.Workspace
}

// Fault is a workspace folder that is not there: a file is.
func (e *FileNotFolderError) Fault() *fault.Error { return fault.NotFound(e.Error(), e.Hint()) }

// Find returns the workspace root for start: start itself or its nearest
// parent that holds CLAUDE.md, or CONTEXT.md beside pipeline/ or stages/,
// or, lacking both, pipeline/ or stages/ holding stage contracts.
func Find(start string) (string, error) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("unable to resolve %s: %w", start, err)
	}
	for dir := abs; ; {
		if IsRoot(dir) || isStagesLayout(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &NotFoundError{From: abs}
		}
		dir = parent
	}
}

// IsRoot reports whether dir looks like a workspace root: it holds an
// identity file (CLAUDE.md, claude.md or AGENTS.md), or a CONTEXT.md
// beside pipeline/, stages/ or another folder of numbered stages.
//
// The folder is looked at through a Root opened on it, as a workspace's
// files are: a link in it that leaves it counts as the file it names
// (opening the workspace then reports the link), and is never followed.
func IsRoot(dir string) bool {
	r, err := OpenRoot(dir, RootOptions{ReadOnly: true})
	if err != nil {
		return false
	}
	defer r.Close()
	return isRootIn(r, ".")
}

// isStagesLayout reports whether dir, which has no identity or routing
// file, holds pipeline/ or stages/ with at least one numbered folder
// holding a CONTEXT.md: a workspace whose root files are missing (check
// notes it). Only a folder named with -w or found above where icm starts
// is taken for one this way; a walk down a folder (the language server's
// discovery, nested workspaces) keeps to IsRoot, so a folder of examples
// or a package's tree is not taken for a workspace of its own.
func isStagesLayout(dir string) bool {
	r, err := OpenRoot(dir, RootOptions{ReadOnly: true})
	if err != nil {
		return false
	}
	defer r.Close()
	for _, s := range stageDirs {
		if dirThere(r, s) && countStages(r, s) > 0 {
			return true
		}
	}
	return false
}

// Options change how a workspace is opened.
type Options struct {
	// Files, when not nil, is laid over the disk (the language server's
	// unsaved buffers); nil reads the disk through the workspace's Root.
	Files Files
	// Repository is the repository root a person names (--repo DIR or
	// ICM_REPO), which shared "/…" inputs are read from; "" finds it by
	// its .git. It must hold the workspace.
	Repository string
}

// Open reads the workspace at root (which must be a workspace root; use
// Find first when starting from an arbitrary folder). files, when not nil,
// is laid over the disk (the language server's unsaved buffers); nil reads
// the disk through the workspace's Root.
func Open(root string, files Files) (*Workspace, error) {
	return OpenWith(root, Options{Files: files})
}

// OpenWith is Open with options.
func OpenWith(root string, opts Options) (*Workspace, error) {
	files := opts.Files
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("unable to resolve %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("unable to open workspace %s: %w", root, err)
	}
	if !isDir(real) {
		return nil, fault.NotFound(fmt.Sprintf("unable to open workspace %s: not a folder", root), "name the workspace's folder")
	}
	disk, err := OpenRoot(real, RootOptions{})
	if err != nil {
		return nil, fmt.Errorf("unable to open workspace %s: %w", root, err)
	}
	ws := &Workspace{Root: real, Disk: disk, Files: files}
	ws.Config, ws.ConfigErr = loadConfig(disk)
	ws.Vars = ws.Config.VarValues()
	if max := int64(ws.Config.Workflow.MaxFileSize); max > 0 {
		disk.maxRead = max
	}
	if ws.Files == nil {
		ws.Files = disk
	}
	if err := ws.openRepository(opts.Repository); err != nil {
		var re *RepositoryError
		if errors.As(err, &re) || opts.Repository != "" {
			disk.Close()
			return nil, err
		}
		// A repository root found by its .git that cannot be opened only
		// means no shared inputs.
	}
	ws.StagesDir = stageDirs[0]
	if l := chooseLayout(disk, ws.Config); l.dir != "" {
		ws.StagesDir, ws.StagesFrom, ws.StagesWhy = l.dir, l.from, l.why
	}
	ws.Identity = identityIn(disk, ".")
	stages, err := ws.listStages()
	if err != nil {
		return nil, err
	}
	ws.Stages = stages
	if len(stages) == 0 {
		ws.Nested = nestedWorkspaces(disk)
	}
	return ws, nil
}

// maxConfigBytes caps config.toml, read before the configured cap is known.
const maxConfigBytes = 1 << 20

// loadConfig reads config.toml through the root over the defaults.
func loadConfig(disk *Root) (config.Config, error) {
	path := filepath.Join(disk.Dir(), config.FileName)
	data, err := disk.ReadFileMax(config.FileName, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return config.Defaults(), nil
	}
	if err != nil {
		return config.Defaults(), fmt.Errorf("unable to read %s: %w", path, err)
	}
	return config.Parse(path, data)
}

// Close releases the workspace's descriptors.
func (w *Workspace) Close() error {
	if w.repo != nil {
		_ = w.repo.Close()
	}
	if w.Disk == nil {
		return nil
	}
	return w.Disk.Close()
}

// Load finds the workspace from start (or uses dir when given) and opens it.
func Load(dir, start string) (*Workspace, error) { return LoadWith(dir, start, Options{}) }

// LoadWith is Load with options.
func LoadWith(dir, start string, opts Options) (*Workspace, error) {
	root := dir
	if root == "" {
		r, err := Find(start)
		if err != nil {
			return nil, err
		}
		root = r
	} else if !IsRoot(root) && !isStagesLayout(root) {
		if info, err := os.Stat(root); err == nil && !info.IsDir() {
			ws, err := Find(filepath.Dir(root))
			if err != nil {
				ws = filepath.Dir(root)
			}
			return nil, &FileNotFolderError{Path: root, Workspace: ws}
		}
		if !isDir(root) {
			return nil, fault.NotFound(fmt.Sprintf("unable to open workspace %s: no such folder", root), "name the workspace's folder")
		}
		return nil, &NotFoundError{From: root, Inside: Below(root)}
	}
	return OpenWith(root, opts)
}

// listStages lists the numbered stage folders. A stage folder (or the
// stages folder) that is a symbolic link is followed when it stays inside
// the workspace; one that leads out is recorded in Escapes and, for a
// stage, listed with its Escape set, so check can say so.
func (w *Workspace) listStages() ([]*Stage, error) {
	root, stagesDir := w.Root, w.StagesDir
	entries, err := w.Disk.ReadDir(stagesDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var esc *EscapeError
	if errors.As(err, &esc) {
		w.Escapes = append(w.Escapes, &EscapeError{Path: stagesDir, Reason: esc.Reason, Link: esc.Link, Target: esc.Target})
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("unable to list stages in %s: %w", filepath.Join(root, stagesDir), err)
	}
	var stages []*Stage
	atRoot := stagesDir == "."
	for _, e := range entries {
		if e.Name() == ProposedDir {
			continue
		}
		m := stagePattern.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		rel := path.Join(stagesDir, e.Name())
		if atRoot && !fileThere(w.Disk, path.Join(rel, ContractFile)) {
			// At the root only a folder holding a contract is a stage: a
			// numbered folder of documents is not.
			continue
		}
		var escape *EscapeError
		switch {
		case e.IsDir():
		case e.Type()&fs.ModeSymlink != 0:
			if _, err := w.Disk.Resolve(rel); errors.As(err, &esc) {
				escape = &EscapeError{Path: rel, Reason: esc.Reason, Link: esc.Link, Target: esc.Target}
				w.Escapes = append(w.Escapes, escape)
				break
			}
			if fi, err := w.Disk.Stat(rel); err != nil || !fi.IsDir() {
				continue
			}
		default:
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue // a prefix too long for an int is not a stage number
		}
		dir := filepath.Join(root, stagesDir, e.Name())
		stages = append(stages, &Stage{
			Name:     e.Name(),
			Number:   n,
			Sub:      m[2],
			Dir:      dir,
			Rel:      rel,
			Contract: filepath.Join(dir, ContractFile),
			Escape:   escape,
		})
	}
	sort.SliceStable(stages, func(i, j int) bool {
		if stages[i].Number != stages[j].Number {
			return stages[i].Number < stages[j].Number
		}
		if stages[i].Sub != stages[j].Sub {
			return stages[i].Sub < stages[j].Sub
		}
		return stages[i].Name < stages[j].Name
	})
	for i, s := range stages {
		s.Index = i
	}
	return stages, nil
}

// Stage finds a stage by folder name ("01-scope"), by the name without its
// number ("scope"), or by number ("1", "01").
func (w *Workspace) Stage(name string) (*Stage, error) {
	name = strings.TrimSuffix(strings.TrimSpace(name), "/")
	name = filepath.Base(name)
	for _, s := range w.Stages {
		if s.Name == name {
			return s, nil
		}
	}
	var matches []*Stage
	for _, s := range w.Stages {
		m := stagePattern.FindStringSubmatch(s.Name)
		rest, num := m[3], strconv.Itoa(s.Number)+s.Sub
		if rest == name || num == strings.TrimLeft(name, "0") || (name != "" && s.Sub == "" && strings.Trim(name, "0") == "" && s.Number == 0) {
			matches = append(matches, s)
		}
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	names := make([]string, len(w.Stages))
	for i, s := range w.Stages {
		names[i] = s.Name
	}
	if len(matches) > 1 {
		return nil, fault.NotFound(fmt.Sprintf("stage %q is ambiguous in %s", name, w.Root),
			"use the full folder name: "+strings.Join(names, ", "))
	}
	if len(names) == 0 {
		return nil, fault.NotFound(fmt.Sprintf("no stage %q in %s", name, w.Root), "the workspace has no stage folders yet")
	}
	return nil, fault.NotFound(fmt.Sprintf("no stage %q in %s", name, w.Root), "its stages are "+strings.Join(names, ", "))
}

// StageOf returns the stage whose folder holds the absolute path p, if any.
func (w *Workspace) StageOf(p string) *Stage {
	for _, s := range w.Stages {
		if p == s.Dir || strings.HasPrefix(p, s.Dir+string(filepath.Separator)) {
			return s
		}
	}
	return nil
}

// Rel returns abs relative to the workspace root with forward slashes, or
// abs itself when it is outside.
func (w *Workspace) Rel(abs string) string {
	r, err := filepath.Rel(w.Root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(r)
}

// Abs returns the absolute path of a workspace-relative path.
func (w *Workspace) Abs(rel string) string {
	return filepath.Join(w.Root, filepath.FromSlash(rel))
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
