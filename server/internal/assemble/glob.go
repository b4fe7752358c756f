package assemble

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// Glob returns the files matching pattern, written relative to the folder
// base ("../../_config/*.md", "notes/**/*.md"), sorted and at most
// maxFolderFiles. Each segment matches as path.Match does and "**" matches
// any depth of folders; dot files match only a pattern that names the dot.
// The folders before the first wildcard must resolve inside the workspace,
// and a match that reaches outside it through a symlink is left out. A
// pattern ending in "/" matches folders instead of files.
func Glob(ws *workspace.Workspace, base, pattern string) ([]string, error) {
	wantDir := strings.HasSuffix(pattern, "/")
	kind := func(info os.FileInfo) bool {
		if wantDir {
			return info.IsDir()
		}
		return info.Mode().IsRegular()
	}
	segs := strings.Split(path.Clean(filepath.ToSlash(pattern)), "/")
	fixed := 0
	for fixed < len(segs) && !hasMeta(segs[fixed]) {
		segs[fixed] = unescape(segs[fixed])
		fixed++
	}
	start := base
	if fixed > 0 {
		prefix := strings.Join(segs[:fixed], "/")
		if fixed == len(segs) {
			// No wildcard at all: the path itself, when it is a file.
			abs, err := ws.Resolve(base, prefix)
			if err != nil {
				return nil, err
			}
			if info, err := ws.Files.Stat(abs); err == nil && kind(info) {
				return []string{abs}, nil
			}
			return nil, nil
		}
		abs, err := ws.Resolve(base, prefix)
		if err != nil {
			return nil, err
		}
		start = abs
	}
	var out []string
	seen := map[string]bool{}
	var walk func(dir string, rest []string)
	walk = func(dir string, rest []string) {
		if len(out) >= maxFolderFiles {
			return
		}
		if len(rest) == 0 {
			return
		}
		seg := rest[0]
		entries, err := ws.Disk.ReadDir(dir)
		if err != nil {
			return
		}
		if seg == "**" {
			walk(dir, rest[1:]) // zero folders
			for _, e := range entries {
				if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
					walk(filepath.Join(dir, e.Name()), rest)
				}
			}
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
				continue
			}
			if ok, _ := path.Match(seg, name); !ok {
				continue
			}
			p := filepath.Join(dir, name)
			if len(rest) > 1 {
				walk(p, rest[1:])
				continue
			}
			if seen[p] || len(out) >= maxFolderFiles {
				continue
			}
			rel, err := filepath.Rel(ws.Root, p)
			if err != nil {
				continue
			}
			real, err := ws.Resolve(ws.Root, filepath.ToSlash(rel))
			if err != nil {
				continue
			}
			if info, err := ws.Files.Stat(real); err == nil && kind(info) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	walk(start, segs[fixed:])
	sort.Strings(out)
	return out, nil
}

// hasMeta reports whether a pattern segment holds an unescaped wildcard.
func hasMeta(seg string) bool {
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

func unescape(seg string) string {
	if !strings.Contains(seg, `\`) {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] == '\\' && i+1 < len(seg) {
			i++
		}
		b.WriteByte(seg[i])
	}
	return b.String()
}
