package workspace

import (
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// MaxFolderFiles bounds how many files a folder input loads.
const MaxFolderFiles = 100

// generated are folders and files a tool writes for itself: a folder
// input naming a whole project ("../../") leaves them out, since no stage
// means to read them.
var generated = map[string]bool{
	"node_modules": true, "__pycache__": true,
	"package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "Cargo.lock": true,
	"go.sum": true, "poetry.lock": true, "composer.lock": true, "Gemfile.lock": true, "uv.lock": true,
}

// Generated reports whether a file or folder name is one a tool writes
// for itself (node_modules/, a lock file): folder and pattern inputs leave
// it out.
func Generated(name string) bool { return generated[name] }

// FolderFiles lists the regular files under the workspace folder dir
// (absolute), as absolute paths, sorted: what a folder input loads. Dot
// files and dot folders are left out, links are not followed, and at most
// MaxFolderFiles are listed; more reports that some were left out.
func (w *Workspace) FolderFiles(dir string) (files []string, more bool, err error) {
	// A shared folder (in the repository above the workspace) is listed
	// through the repository's read-only Root.
	root := w.InputRoot(dir)
	name, err := root.name(dir)
	if err != nil {
		return nil, false, err
	}
	// Walk the folder the name leads to: the folder itself may be a link
	// that stays inside (a stage's output/ linked to a shared folder).
	real, err := root.Resolve(name)
	if err != nil {
		return nil, false, err
	}
	err = root.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == real {
				return err
			}
			return nil
		}
		if p != real && (strings.HasPrefix(d.Name(), ".") || generated[d.Name()] || (d.IsDir() && real == "." && p == HistoryDir && root == w.Disk)) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if len(files) >= MaxFolderFiles {
			more = true
			return fs.SkipAll
		}
		// Report the file under the folder as it was named, not where a
		// link on the way led.
		sub := strings.TrimPrefix(strings.TrimPrefix(p, real), "/")
		files = append(files, filepath.Join(root.Dir(), filepath.FromSlash(path.Join(name, sub))))
		return nil
	})
	sort.Strings(files)
	return files, more, err
}
