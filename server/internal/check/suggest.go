package check

// This file holds a workspace file to offer in place of a missing input.

import (
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/suggest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// suggest returns the workspace file (or declared output) whose path is
// closest to rel, close enough to be a typo of it. Contracts and dot files (.gitkeep) are never
// suggested: nobody lists those as an input.
func (c *checker) suggest(rel string) string {
	if c.files == nil {
		for out := range c.producer {
			c.files = append(c.files, out)
		}
		sort.Strings(c.files)
		if c.opts.Files != nil {
			c.files = append(c.files, c.opts.Files()...)
		} else {
			c.files = append(c.files, ListFiles(c.ws)...)
		}
	}
	best, bestD := "", len(rel)/4+2
	base := path.Base(rel)
	for _, f := range c.files {
		if !suggestible(f) {
			continue
		}
		d := suggest.Distance(rel, f)
		if path.Base(f) == base {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// suggestible reports whether a workspace file may be offered in place of
// a missing input.
func suggestible(f string) bool {
	name := path.Base(f)
	if strings.HasPrefix(name, ".") || name == workspace.ContractFile {
		return false
	}
	for _, seg := range strings.Split(path.Dir(f), "/") {
		if strings.HasPrefix(seg, ".") {
			return false
		}
	}
	return true
}

// ListFiles lists a workspace's files, relative to its root with forward
// slashes, leaving out dot folders, history/ and node_modules/ (at most
// 5000). Links are listed, not followed.
func ListFiles(ws *workspace.Workspace) []string {
	var out []string
	_ = ws.Disk.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() && p != "." && (strings.HasPrefix(name, ".") || name == workspace.HistoryDir || name == "node_modules") {
			return fs.SkipDir
		}
		if !d.IsDir() && len(out) < 5000 {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// relTo writes the workspace-relative path target relative to the folder dir.
func relTo(dir, target string) string {
	r, err := filepath.Rel(filepath.FromSlash(dir), filepath.FromSlash(target))
	if err != nil {
		return target
	}
	return filepath.ToSlash(r)
}
