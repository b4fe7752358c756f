package runnable

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// copyRepo copies the repository folder src into dst (which must not
// exist) as a fresh clone has it: every file and link, outputs the author
// committed included, and no .git of its own; an empty .git folder then
// marks dst as the repository's root, so shared /… inputs resolve in the
// copy as they would in a clone.
func copyRepo(src, dst string) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.Name() == ".git" && rel != "." {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // a worktree's .git file
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case !d.Type().IsRegular():
			return nil // sockets and pipes are no part of a clone
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm()|0o200)
	})
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return os.MkdirAll(filepath.Join(dst, ".git"), 0o755)
}
