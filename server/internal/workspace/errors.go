package workspace

import (
	"errors"
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
)

// EscapeError says a path would leave the workspace (or the tree a Root
// was opened on). Link, when set, is the symbolic link that leads out, as
// a path below the root, and Target is where it points.
type EscapeError struct {
	Path   string
	Reason string
	Link   string
	Target string
	// Never is set for a path icm never reads wherever it lies (anything
	// under .git), rather than one that leaves.
	Never bool
	// NoRepository is set for a path that climbs above a workspace in no
	// git repository, with no root named: it may well lead into the
	// repository around it, which icm reads only once the person names it.
	NoRepository bool
}

func (e *EscapeError) Error() string {
	if e.Never {
		return fmt.Sprintf("path %s is never read: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("path %s leaves the workspace: %s", e.Path, e.Reason)
}

// Hint says what to do.
func (e *EscapeError) Hint() string {
	if e.Never {
		return "name a file outside .git: icm never reads a repository's own folder"
	}
	if e.Link != "" {
		return "icm reads and writes nothing outside the workspace: put the file or folder itself in the workspace in place of the link " + e.Link
	}
	return "write the path relative to the stage folder, inside the workspace"
}

// Fault is a file of the workspace icm will not read, with the fix.
func (e *EscapeError) Fault() *fault.Error { return fault.Failed(e.Error(), e.Hint(), nil) }

// linkEscape builds the error for a symbolic link that leads out.
func linkEscape(path, link, target string) *EscapeError {
	reason := fmt.Sprintf("the symbolic link %s points to %s, outside the workspace", link, target)
	if link == path {
		reason = fmt.Sprintf("it is a symbolic link to %s, outside the workspace", target)
	}
	return &EscapeError{Path: path, Reason: reason, Link: link, Target: target}
}

// NotRegularError says a path names something other than a regular file
// (a named pipe, a device, a socket): icm reads only regular files, so
// nothing can make it wait forever on an open or read endless data.
type NotRegularError struct {
	Path string
	// Kind says what it is instead ("a named pipe (FIFO)", "a device").
	Kind string
	// Folder is set when a folder was to be listed there.
	Folder bool
}

func (e *NotRegularError) Error() string {
	if e.Folder {
		return fmt.Sprintf("%s is %s, not a folder", e.Path, e.Kind)
	}
	return fmt.Sprintf("%s is %s, not a regular file; icm reads only regular files", e.Path, e.Kind)
}

// Hint says what to do.
func (e *NotRegularError) Hint() string {
	if e.Folder {
		return "replace " + e.Path + " with a folder"
	}
	return "replace " + e.Path + " with a regular file"
}

// Fault is a file of the workspace icm will not read, with the fix.
func (e *NotRegularError) Fault() *fault.Error { return fault.Failed(e.Error(), e.Hint(), nil) }

// TooLargeError says a file is over the read cap; it was not read.
type TooLargeError struct {
	Path string
	Size int64
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is too large (%s; icm reads files up to %s)", e.Path, FormatSize(e.Size), FormatSize(e.Max))
}

// Hint says what to do.
func (e *TooLargeError) Hint() string {
	return "split the file, or raise [workflow] max_file_size in config.toml"
}

// Fault is a file of the workspace icm will not read, with the fix.
func (e *TooLargeError) Fault() *fault.Error { return fault.Failed(e.Error(), e.Hint(), nil) }

// LoopError says resolving a path passed more symbolic links than icm
// follows (a loop, or links nested past any sane depth).
type LoopError struct {
	Path string
}

func (e *LoopError) Error() string {
	return fmt.Sprintf("%s passes through too many symbolic links (more than %d, or a loop)", e.Path, MaxLinks)
}

// Hint says what to do.
func (e *LoopError) Hint() string {
	return "link to the file itself rather than through a chain of links"
}

// Fault is a file of the workspace icm will not read, with the fix.
func (e *LoopError) Fault() *fault.Error { return fault.Failed(e.Error(), e.Hint(), nil) }

// ReadOnlyError says a write was asked of a root opened read-only.
type ReadOnlyError struct {
	Path string
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s is in a read-only folder; icm writes only inside the workspace", e.Path)
}

// Fault is a write icm refused to make outside the workspace.
func (e *ReadOnlyError) Fault() *fault.Error {
	return fault.Failed(e.Error(), "name a path inside the workspace for what is written", nil)
}

// Refused reports whether err is one of the refusals of this package (a
// path that leaves, a file that is not regular or is too large, too many
// links, a write to a read-only root): a problem of the workspace's
// files, to report as a finding, not a failure of the machine.
func Refused(err error) bool {
	var (
		esc  *EscapeError
		nr   *NotRegularError
		big  *TooLargeError
		loop *LoopError
		ro   *ReadOnlyError
	)
	return errors.As(err, &esc) || errors.As(err, &nr) || errors.As(err, &big) || errors.As(err, &loop) || errors.As(err, &ro)
}

// FormatSize writes a byte count the way people read it: 512 B, 8 KB, 4.0 MB.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
