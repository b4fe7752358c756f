package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"sync"
)

// Folder handles for one pass.
//
// os.Root opens every folder on a path, one at a time, for each operation:
// reading pipeline/250-step/input.md opens pipeline/, then 250-step/, then
// the file, and closes the folders again. A check does a dozen operations
// per stage, so most of its system calls were those opens. A pass (a check
// reading the workspace as it is at one moment, see Workspace.Pass) keeps
// the folders it has opened, each as an os.Root of its own, and runs an
// operation on a name through the handle of the nearest folder above it:
// one openat instead of three.
//
// Containment still rests on os.Root alone:
//   - A handle is opened through its parent's handle (the tree's own
//     descriptor at the top) as "name/.", so the folder is opened as a
//     folder (O_DIRECTORY: a named pipe put in its place is refused at
//     once instead of holding the open) and lies inside the tree.
//   - A handle is kept only for a real folder: after the open, the name's
//     Lstat in the parent (asked then, never remembered) says folder, not
//     link, and is the very folder the handle holds (os.SameFile). So at
//     that moment no link lay on the way to the handle, and a path through
//     it counts the same links (MaxLinks) as through the tree.
//   - An operation through a handle stands when it succeeds or finds nothing
//     there. Any other answer (a link that climbs above the folder or is
//     written as an absolute path, a loop, a handle closed meanwhile) is
//     asked again of the tree, which decides and explains as it does without
//     handles.
//   - A link swapped in for a folder after its handle was opened is never
//     followed: the handle holds the folder itself. A folder moved away
//     during the pass is still read where it went, as the tree's own
//     descriptor would be (and as os.Root reads a folder it is walking
//     through); what is in it came from the workspace, and nothing can be
//     put there that could not be put in the workspace.
//   - Writes never use handles. A handle, once held, stays open until the
//     pass ends (EndPass), so none is closed under an operation or a walk;
//     past the budget the pass opens no more and asks the nearest folder it
//     holds, or the tree. After EndPass every operation goes to the tree.
type folders struct {
	mu sync.Mutex
	// open maps a folder's name below the tree to its handle; nil
	// remembers that the folder gets none (missing, a link, not a folder).
	open map[string]*os.Root
	// held counts the handles in open; max bounds it.
	held, max int
	// ended is set by close: no handle is opened after it.
	ended bool
}

// maxFolderHandles bounds the descriptors one pass holds, so that a check
// of a workspace of a few hundred stages keeps every stage folder open
// between reading the contracts and checking each stage. The system's
// limit on open files bounds it further (folderBudget).
const maxFolderHandles = 1024

func newFolders() *folders {
	return &folders{open: map[string]*os.Root{}, max: min(maxFolderHandles, folderBudget())}
}

// handle returns the handle of the folder dir (a clean name below the
// tree, not "."), opening it when the pass has none yet, or nil when the
// folder gets none.
func (r *Root) handle(dir string) *os.Root {
	f := r.folders
	f.mu.Lock()
	h, ok := f.open[dir]
	full := f.ended || f.held >= f.max
	f.mu.Unlock()
	if ok || full {
		return h
	}
	h = r.openFolder(dir)
	f.mu.Lock()
	defer f.mu.Unlock()
	if old, ok := f.open[dir]; ok || f.ended || f.held >= f.max {
		// Opened meanwhile by another caller, or the pass ended or filled
		// up while this one was opening.
		if h != nil {
			_ = h.Close()
		}
		return old
	}
	if h != nil {
		f.held++
	}
	f.open[dir] = h
	return h
}

// openFolder opens dir through its parent's handle and keeps it only when
// it is a real folder (see folders).
func (r *Root) openFolder(dir string) *os.Root {
	parent := r.r
	if up := path.Dir(dir); up != "." {
		if parent = r.handle(up); parent == nil {
			return nil
		}
	}
	if li, err := r.lstat(dir); err != nil || !li.IsDir() {
		// What the pass has seen there is no folder: no handle, and no
		// open that would fail. (Only a hint: the open below proves.)
		return nil
	}
	base := path.Base(dir)
	h, err := parent.OpenRoot(base + "/.")
	if err != nil {
		return nil
	}
	hi, err := h.Stat(".")
	li, lerr := parent.Lstat(base)
	if err != nil || lerr != nil || !li.IsDir() || !os.SameFile(li, hi) {
		_ = h.Close()
		return nil
	}
	return h
}

// inFolder runs op on name through the handle of the nearest folder above
// it that the pass holds. ok says the answer stands: a success, or
// fs.ErrNotExist, which the tree would answer too. With ok false the
// caller asks the tree.
func inFolder[T any](r *Root, name string, op func(h *os.Root, rel string) (T, error)) (v T, err error, ok bool) {
	h, dir, rel := r.at(name)
	if h == nil {
		return v, nil, false
	}
	v, err = op(h, rel)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return v, rebase(err, dir), true
	}
	var zero T
	return zero, nil, false
}

// at returns the handle of the nearest folder above name that the pass
// holds, that folder's name and name relative to it; a nil handle when
// there is none (no pass, or name sits at the top of the tree).
func (r *Root) at(name string) (h *os.Root, dir, rel string) {
	if r.folders == nil || r.folders.max == 0 {
		return nil, "", ""
	}
	for dir = path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if h = r.handle(dir); h != nil {
			return h, dir, name[len(dir)+1:]
		}
	}
	return nil, "", ""
}

// close closes every handle the pass holds and ends the pass: no handle
// is opened after it.
func (f *folders) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended = true
	for _, h := range f.open {
		if h != nil {
			_ = h.Close()
		}
	}
	clear(f.open)
	f.held = 0
}
