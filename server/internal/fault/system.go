package fault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ofSystem is the fault of an error the system or the context made, which
// is no bug of icm's but says what happened by its type: a cancelled
// context, a deadline that passed, a file or call the operating system
// refused. It returns nil for any other error.
func ofSystem(err error) *Error {
	if errors.Is(err, context.Canceled) {
		return Cancelled(err.Error(), err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Failed(err.Error(), "it took longer than it may: check that what it waited on answers, then try again", err)
	}
	var (
		pathErr *fs.PathError
		linkErr *os.LinkError
		sysErr  *os.SyscallError
	)
	switch {
	case errors.As(err, &pathErr):
		return refused(err, pathErr.Path)
	case errors.As(err, &linkErr):
		return refused(err, linkErr.New)
	case errors.As(err, &sysErr):
		return refused(err, "")
	}
	return nil
}

// refused is a KindFailed fault for a file or call the system refused,
// placed at path when it is a whole one (a path below an os.Root is not,
// and would read as a file of the current folder).
func refused(err error, path string) *Error {
	f := Failed(err.Error(), systemHint(err), err)
	if filepath.IsAbs(path) {
		f.File = path
	}
	return f
}

// systemHint says what to do about the system's refusal, by its cause.
func systemHint(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "icm may not use the file: check its permissions and who owns it"
	case errors.Is(err, fs.ErrNotExist):
		return "check that the file or folder is there (something may have moved or deleted it), then try again"
	case errors.Is(err, syscall.ENOSPC):
		return "the disk is full: free some space, then try again"
	}
	return "check the file and that icm may read and write it, then try again"
}
