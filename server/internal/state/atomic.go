// Package state keeps what icm knows about runs in plain files inside the
// workspace: a run record and an approval per stage, previous versions of
// outputs, and the lock that lets one run at a time work in a workspace.
// A stage's state (pending, awaiting review, approved, stale, failed) is
// derived from these files and the files on disk, never stored.
package state

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically: a temporary file in the same
// folder is written, synced and renamed over path, then the folder is
// synced. A crash at any moment leaves either the old file or the new one,
// whole.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, true)
}

// WriteCheckpoint writes data to path atomically but without syncing to
// disk: a killed process still leaves the old file or the new one, whole
// (the rename is atomic), but a power cut may lose the write. It is for
// intermediate results that can be recomputed (finished For each items),
// where an fsync per item would cost more than the work it saves.
func WriteCheckpoint(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, false)
}

func replace(path string, data []byte, perm os.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("unable to create folder %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("unable to write %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	ok = true
	if !durable {
		return nil
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("unable to sync folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("unable to sync folder %s: %w", dir, err)
	}
	return nil
}
