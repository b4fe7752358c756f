package workspace

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
)

var errIsDir = errors.New("is a directory")

// WriteFile writes data to p atomically and durably: a temporary file in
// the same folder is written, synced and renamed over p, then the folder
// is synced. A crash at any moment leaves either the old file or the new
// one, whole. Missing folders are created. Everything happens through the
// tree's descriptor: a folder on the way that is a link out is refused,
// and a final component that is a link is replaced, never written through.
func (r *Root) WriteFile(p string, data []byte, perm fs.FileMode) error {
	return r.replace(p, data, perm, true)
}

// WriteCheckpoint is WriteFile without the syncs: a killed process still
// leaves the old file or the new one, whole (the rename is atomic), but a
// power cut may lose the write. It is for results that can be recomputed.
func (r *Root) WriteCheckpoint(p string, data []byte, perm fs.FileMode) error {
	return r.replace(p, data, perm, false)
}

func (r *Root) writable(p string) (string, error) {
	name, err := r.name(p)
	if err != nil {
		return "", err
	}
	if r.readOnly {
		return "", &ReadOnlyError{Path: name}
	}
	return name, nil
}

// CopyFile copies the regular file from to the path to, streaming it (a
// file of any size costs no memory), atomically and durably as WriteFile.
func (r *Root) CopyFile(from, to string) error {
	f, info, err := r.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	return r.replaceFrom(to, f, info.Mode().Perm(), true)
}

func (r *Root) replace(p string, data []byte, perm fs.FileMode, durable bool) error {
	return r.replaceFrom(p, bytes.NewReader(data), perm, durable)
}

func (r *Root) replaceFrom(p string, src io.Reader, perm fs.FileMode, durable bool) error {
	name, err := r.writable(p)
	if err != nil {
		return err
	}
	dir := path.Dir(name)
	if err := r.MkdirAll(dir); err != nil {
		return err
	}
	// Work in the folder the name leads to (a link on the way written as
	// an absolute path into the tree is refused by os.Root on principle).
	if real, missing, err := r.walk(dir); err == nil && !missing {
		dir, name = real, path.Join(real, path.Base(name))
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	// The temporary file names this process, so a later run can sweep
	// what a killed one left (SweepTemps).
	tmp := path.Join(dir, tempName(path.Base(name), hex.EncodeToString(rnd[:])))
	f, err := r.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		_, err = r.explain("create", tmp, err)
		return fmt.Errorf("unable to write %s: %w", name, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			_ = r.r.Remove(tmp)
		}
	}()
	if _, err := io.Copy(f, src); err != nil {
		return fmt.Errorf("unable to write %s: %w", name, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("unable to write %s: %w", name, err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("unable to write %s: %w", name, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("unable to write %s: %w", name, err)
	}
	if err := r.r.Rename(tmp, name); err != nil {
		_, err = r.explain("rename", name, err)
		return fmt.Errorf("unable to write %s: %w", name, err)
	}
	ok = true
	if !durable {
		return nil
	}
	return r.SyncDir(dir)
}

// SyncDir flushes a folder's entries (a rename into it) to disk.
func (r *Root) SyncDir(p string) error {
	name, err := r.name(p)
	if err != nil {
		return err
	}
	d, err := r.r.Open(name)
	if err != nil {
		_, err = r.explain("open", name, err)
		return fmt.Errorf("unable to sync folder %s: %w", name, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("unable to sync folder %s: %w", name, err)
	}
	return nil
}

// MkdirAll creates a folder of the tree and any missing parents.
func (r *Root) MkdirAll(p string) error {
	name, err := r.writable(p)
	if err != nil {
		return err
	}
	if name == "." {
		return nil
	}
	_, err = doTree(r, "mkdir", name, func(n string) (struct{}, error) { return struct{}{}, r.r.MkdirAll(n, 0o755) })
	if err != nil {
		return fmt.Errorf("unable to create folder %s: %w", name, err)
	}
	return nil
}

// Remove removes one file or empty folder of the tree; a missing one is
// not an error.
func (r *Root) Remove(p string) error {
	name, err := r.writable(p)
	if err != nil {
		return err
	}
	if err := r.r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		_, err = r.explain("remove", name, err)
		return err
	}
	return nil
}

// RemoveAll removes a folder of the tree and everything in it (links are
// removed, never followed); a missing one is not an error.
func (r *Root) RemoveAll(p string) error {
	name, err := r.writable(p)
	if err != nil {
		return err
	}
	if name == "." {
		return fmt.Errorf("refusing to remove the whole of %s", r.dir)
	}
	if err := r.r.RemoveAll(name); err != nil {
		_, err = r.explain("remove", name, err)
		return err
	}
	return nil
}

// Rename moves a file of the tree to another place in it, atomically.
func (r *Root) Rename(from, to string) error {
	src, err := r.writable(from)
	if err != nil {
		return err
	}
	dst, err := r.writable(to)
	if err != nil {
		return err
	}
	if err := r.r.Rename(src, dst); err != nil {
		if _, e := r.explain("rename", dst, err); e != nil {
			return e
		}
		_, err = r.explain("rename", src, err)
		return err
	}
	return nil
}

// OpenFile opens a file of the tree with the flags of os.OpenFile (a lock
// file, a trace appended to). Asking to write needs a writable tree.
func (r *Root) OpenFile(p string, flag int, perm fs.FileMode) (*os.File, error) {
	name, err := r.name(p)
	if err != nil {
		return nil, err
	}
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		if name, err = r.writable(p); err != nil {
			return nil, err
		}
	}
	return doTree(r, "open", name, func(n string) (*os.File, error) { return r.r.OpenFile(n, flag, perm) })
}
