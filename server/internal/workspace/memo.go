package workspace

import (
	"io/fs"
	"os"
	"sync"
)

// resolveMemo remembers, for one pass over a workspace (a check), how each
// path written in a stage folder resolved: check and the loader resolve
// every input, and the walk that explains an escape costs a few system
// calls per folder on the way. Opening a file still goes through the Root,
// which refuses what leaves whatever was remembered.
type resolveMemo struct {
	mu    sync.Mutex
	paths map[resolveKey]resolved
	// below remembers Root.Resolve of names below the workspace, which
	// many stages' paths share ("_config/audience.md" from every stage).
	below map[string]resolved
	// found remembers FindInput: the place chosen and every place tried.
	found map[resolveKey]foundResult
}

type foundResult struct {
	chosen Found
	tried  []Found
	err    error
}

type resolveKey struct {
	base, p string
	input   bool
}

type resolved struct {
	abs    string
	shared bool
	err    error
}

// Pass returns a copy of w for one pass that reads the workspace as it is
// at one moment (a check): it remembers how paths resolve, and its Roots
// keep the folders they open (see folders). The copy shares w's files and
// descriptors; reads through Files go through the copy's Root when w reads
// the disk itself. EndPass releases what the pass holds.
func (w *Workspace) Pass() *Workspace {
	c := *w
	c.memo = &resolveMemo{paths: map[resolveKey]resolved{}, below: map[string]resolved{}, found: map[resolveKey]foundResult{}}
	c.Disk, c.repo = w.Disk.pass(), w.repo.pass()
	if w.Disk != nil && w.Files == Files(w.Disk) {
		c.Files = c.Disk
	}
	return &c
}

// EndPass closes the folder handles of a copy made by Pass; the copy must
// not be used after it. On any other Workspace it does nothing.
func (w *Workspace) EndPass() {
	for _, r := range []*Root{w.Disk, w.repo} {
		if r != nil && r.folders != nil {
			r.folders.close()
		}
	}
}

// pass returns a copy of r that remembers the walk's Lstats and keeps the
// folders it opens, or nil for a nil r.
func (r *Root) pass() *Root {
	if r == nil {
		return nil
	}
	c := *r
	c.lstats = &lstatMemo{infos: map[string]lstatResult{}}
	c.folders = newFolders()
	return &c
}

// remember returns the remembered resolution of k, or computes it with f.
func (m *resolveMemo) remember(k resolveKey, f func() (string, bool, error)) (string, bool, error) {
	if m == nil {
		return f()
	}
	m.mu.Lock()
	r, ok := m.paths[k]
	m.mu.Unlock()
	if ok {
		return r.abs, r.shared, r.err
	}
	abs, shared, err := f()
	m.mu.Lock()
	m.paths[k] = resolved{abs, shared, err}
	m.mu.Unlock()
	return abs, shared, err
}

// ResolveBelow follows the name rel below the workspace folder through its
// Root (Root.Resolve), remembered during a pass (Pass): the
// path it lands on, or the EscapeError or LoopError that says why not.
func (w *Workspace) ResolveBelow(rel string) (string, error) {
	m := w.memo
	if m == nil {
		return w.Disk.Resolve(rel)
	}
	m.mu.Lock()
	r, ok := m.below[rel]
	m.mu.Unlock()
	if ok {
		return r.abs, r.err
	}
	real, err := w.Disk.Resolve(rel)
	m.mu.Lock()
	m.below[rel] = resolved{abs: real, err: err}
	m.mu.Unlock()
	return real, err
}

// lstatMemo remembers Lstat of names below a Root during one pass.
type lstatMemo struct {
	mu    sync.Mutex
	infos map[string]lstatResult
}

type lstatResult struct {
	info fs.FileInfo
	err  error
}

// lstat is os.Root's Lstat, remembered when the Root is a pass's copy.
func (r *Root) lstat(name string) (fs.FileInfo, error) {
	m := r.lstats
	if m == nil {
		return r.lstatNow(name)
	}
	m.mu.Lock()
	res, ok := m.infos[name]
	m.mu.Unlock()
	if ok {
		return res.info, res.err
	}
	info, err := r.lstatNow(name)
	m.mu.Lock()
	m.infos[name] = lstatResult{info, err}
	m.mu.Unlock()
	return info, err
}

// lstatNow is os.Root's Lstat, through a pass's folder handle when it has
// one (see folders).
func (r *Root) lstatNow(name string) (fs.FileInfo, error) {
	if info, err, ok := inFolder(r, name, (*os.Root).Lstat); ok {
		return info, err
	}
	return r.r.Lstat(name)
}

// readlink is os.Root's Readlink, through a pass's folder handle when it
// has one.
func (r *Root) readlink(name string) (string, error) {
	if target, err, ok := inFolder(r, name, (*os.Root).Readlink); ok && err == nil {
		return target, nil
	}
	return r.r.Readlink(name)
}
