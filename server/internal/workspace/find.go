package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// Base names where an input path was read from. Contracts written for
// agents spell paths from wherever their author stood: the contract's
// folder (`../01-a/output/x.md`), the workspace root
// (`stages/01-a/output/x.md`, `_config/voice.md`), the stages folder
// (`01-a/output/x.md`) or the repository root (`/_core/rules.md`). One
// resolver tries them all, in the order of ResolveOrder, and says which one
// it used.
type Base string

// The bases, in the order they are tried.
const (
	BaseStage      Base = "stage folder"
	BaseWorkspace  Base = "workspace root"
	BaseStages     Base = "stages folder"
	BaseRepository Base = "repository root"
)

// ResolveOrder says, for people, in which order an input path is looked
// for.
const ResolveOrder = "a path is looked for in the stage folder, then the workspace root, then the stages folder; " +
	"a leading / names the workspace root, then the folders above it up to the repository root; " +
	"../ climbing out of the workspace reaches the repository root, never above it"

// Found is one place an input path may lead to.
type Found struct {
	// Abs is the path as written, resolved against Base (links not
	// followed, so a person recognises it).
	Abs string
	// Base is where it was looked for.
	Base Base
	// Shared is set when Abs lies outside the workspace, in its repository:
	// read, never written.
	Shared bool
	// Exists says a file or folder is there; Info describes it then.
	Exists bool
	Info   fs.FileInfo
}

// FindInput resolves an input path p written in the folder dir (a stage
// folder, or the workspace root) by trying each base in order. It returns
// the first place where p exists (or, when it exists nowhere, the first
// place it was looked for: the stage folder, or for "/…" the repository
// root) and every place tried, in order, so that a caller can match any
// of them against what other stages declare they write. The error is an
// escape: p leaves the workspace (and its repository), passes a link out
// or reaches into .git.
func (w *Workspace) FindInput(dir, p string) (Found, []Found, error) {
	k := resolveKey{dir, p, true}
	if m := w.memo; m != nil {
		m.mu.Lock()
		r, ok := m.found[k]
		m.mu.Unlock()
		if ok {
			return r.chosen, r.tried, r.err
		}
	}
	chosen, tried, err := w.findInput(dir, p)
	if m := w.memo; m != nil {
		m.mu.Lock()
		m.found[k] = foundResult{chosen, tried, err}
		m.mu.Unlock()
	}
	return chosen, tried, err
}

// ResolveInput is FindInput for callers that need only the path: the
// absolute path chosen and whether it is shared (outside the workspace).
func (w *Workspace) ResolveInput(dir, p string) (abs string, shared bool, err error) {
	f, _, err := w.FindInput(dir, p)
	return f.Abs, f.Shared, err
}

func (w *Workspace) findInput(dir, p string) (Found, []Found, error) {
	if p == "" {
		return Found{}, nil, fmt.Errorf("empty path")
	}
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
		return w.findRooted(p)
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, `\`) || hasDrive(p) {
		_, err := w.Resolve(dir, p)
		return Found{}, nil, err
	}
	joined := filepath.Join(dir, filepath.FromSlash(p))
	if _, inside := w.Disk.Rel(joined); !inside {
		f, err := w.findAbove(dir, p, joined)
		if err != nil {
			return Found{}, nil, err
		}
		return f, []Found{f}, nil
	}
	first, err := w.here(dir, p, BaseStage)
	if err != nil {
		return Found{}, nil, err
	}
	tried := []Found{first}
	if first.Exists || climbs(p) {
		return first, tried, nil
	}
	// Not in the stage folder: the author may have written it from the
	// workspace root or from the stages folder.
	stagesDir := filepath.Join(w.Root, filepath.FromSlash(w.StagesDir))
	for _, b := range []struct {
		dir  string
		base Base
	}{{w.Root, BaseWorkspace}, {stagesDir, BaseStages}} {
		if b.dir == dir {
			continue
		}
		f, err := w.here(b.dir, p, b.base)
		if err != nil || seen(tried, f.Abs) {
			continue // a link out from another base is not what was meant
		}
		tried = append(tried, f)
		if f.Exists {
			return f, tried, nil
		}
	}
	return first, tried, nil
}

// here resolves p against dir inside the workspace and says whether it is
// there.
func (w *Workspace) here(dir, p string, base Base) (Found, error) {
	abs, err := w.Resolve(dir, p)
	if err != nil {
		return Found{}, err
	}
	info, serr := w.files().Stat(abs)
	if w.Refused(serr) {
		return Found{}, serr
	}
	return Found{Abs: abs, Base: base, Exists: serr == nil, Info: info}, nil
}

// files is what the workspace reads its files through.
func (w *Workspace) files() Files {
	if w.Files == nil {
		return w.Disk
	}
	return w.Files
}

// Refused reports the errors a stat of an input passes on: the refusals
// of this package other than a file's own kind or size (which the read
// reports).
func (w *Workspace) Refused(err error) bool {
	var esc *EscapeError
	var loop *LoopError
	return errors.As(err, &esc) || errors.As(err, &loop)
}

// findAbove resolves a relative path whose ".." climbs out of the
// workspace: into the repository, read-only, when the file is there.
func (w *Workspace) findAbove(dir, p, joined string) (Found, error) {
	if w.repo == nil {
		if w.Repository == "" {
			return Found{}, &EscapeError{Path: p, NoRepository: true, Reason: "it climbs above the workspace folder with ..; outside a git repository icm reads only inside the workspace (" + NameTheRepository + " to read shared files above it)"}
		}
		_, err := w.Resolve(dir, p)
		return Found{}, err
	}
	rel, ok := w.repo.Rel(joined)
	if !ok {
		return Found{}, &EscapeError{Path: p, Reason: "it climbs above the repository root " + w.Repository}
	}
	if err := w.sharedExists(p, rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Not there: as before, a path that leaves the workspace.
			_, err := w.Resolve(dir, p)
			return Found{}, err
		}
		return Found{}, err
	}
	info, _ := w.repo.Stat(rel)
	return Found{Abs: joined, Base: BaseStage, Shared: true, Exists: info != nil, Info: info}, nil
}

// findRooted resolves a path with a leading "/": the workspace's own file
// first, then the folders above it up to the repository root, nearest
// first.
func (w *Workspace) findRooted(p string) (Found, []Found, error) {
	rest := strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "/")
	if rest == "" || rest == "." {
		return Found{}, nil, &EscapeError{Path: p, Reason: "it names the repository root itself, not a file in it"}
	}
	var tried []Found
	if _, err := w.Disk.Lstat(rest); err == nil || w.repo == nil {
		f, err := w.here(w.Root, rest, BaseWorkspace)
		var esc *EscapeError
		if errors.As(err, &esc) {
			e := *esc
			e.Path = p // in the contract's words
			return Found{}, nil, &e
		}
		if err != nil {
			return Found{}, nil, err
		}
		tried = append(tried, f)
		if f.Exists || w.repo == nil {
			return f, tried, nil
		}
	}
	for _, dir := range w.above {
		abs := filepath.Join(dir, filepath.FromSlash(rest))
		rel, _ := w.repo.Rel(abs)
		if _, err := w.repo.Lstat(rel); err != nil {
			continue
		}
		if err := w.sharedExists(p, rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Found{}, nil, err
		}
		info, _ := w.repo.Stat(rel)
		f := Found{Abs: abs, Base: BaseRepository, Shared: true, Exists: info != nil, Info: info}
		return f, append(tried, f), nil
	}
	f := Found{Abs: filepath.Join(w.Repository, filepath.FromSlash(rest)), Base: BaseRepository, Shared: true}
	return f, append(tried, f), nil
}

// climbs reports whether a relative path starts by climbing with "..".
func climbs(p string) bool {
	c := path.Clean(filepath.ToSlash(p))
	return c == ".." || strings.HasPrefix(c, "../")
}

func seen(fs []Found, abs string) bool {
	for _, f := range fs {
		if f.Abs == abs {
			return true
		}
	}
	return false
}
