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
// base ("../../_config/*.md", "notes/**/*.md", "/_core/templates/*.md"),
// sorted and at most maxFolderFiles, and the absolute path the pattern
// stands for. Each segment matches as path.Match does and "**" matches any
// depth of folders; dot files match only a pattern that names the dot. The
// folders before the first wildcard resolve as an input path does: inside
// the workspace, or in the repository above it (read-only); a match that
// reaches outside through a symlink is left out. A pattern ending in "/"
// matches folders instead of files.
func Glob(ws *workspace.Workspace, base, pattern string) (matches []string, at string, from workspace.Base, err error) {
	from = workspace.BaseStage
	wantDir := strings.HasSuffix(pattern, "/")
	kind := func(info os.FileInfo) bool {
		if wantDir {
			return info.IsDir()
		}
		return info.Mode().IsRegular()
	}
	rooted := strings.HasPrefix(pattern, "/")
	segs := strings.Split(strings.TrimPrefix(path.Clean(filepath.ToSlash(pattern)), "/"), "/")
	fixed := 0
	for fixed < len(segs) && !hasMeta(segs[fixed]) {
		segs[fixed] = unescape(segs[fixed])
		fixed++
	}
	start := base
	if fixed > 0 || rooted {
		prefix := strings.Join(segs[:fixed], "/")
		if rooted {
			prefix = "/" + prefix
		}
		f, _, err := ws.FindInput(base, prefix)
		if err != nil {
			return nil, "", from, err
		}
		abs := f.Abs
		from = f.Base
		at = filepath.Join(abs, filepath.FromSlash(strings.Join(segs[fixed:], "/")))
		if fixed == len(segs) {
			// No wildcard at all: the path itself, when it is a file.
			if info, err := ws.StatInput(abs); err == nil && kind(info) {
				return []string{abs}, at, from, nil
			}
			return nil, at, from, nil
		}
		start = abs
	} else {
		at = filepath.Join(base, filepath.FromSlash(strings.Join(segs, "/")))
	}
	shared := ws.Shared(start)
	root := ws.InputRoot(start)
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
		entries, err := root.ReadDir(dir)
		if err != nil {
			return
		}
		if seg == "**" {
			walk(dir, rest[1:]) // zero folders
			for _, e := range entries {
				if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !workspace.Generated(e.Name()) {
					walk(filepath.Join(dir, e.Name()), rest)
				}
			}
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") && (shared || !strings.HasPrefix(seg, ".")) {
				continue // never a hidden file outside the workspace
			}
			if ok, _ := path.Match(seg, name); !ok {
				continue
			}
			p := filepath.Join(dir, name)
			if len(rest) > 1 {
				walk(p, rest[1:])
				continue
			}
			if seen[p] || len(out) >= maxFolderFiles || !contained(ws, p, shared) {
				continue
			}
			if info, err := ws.StatInput(p); err == nil && kind(info) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	walk(start, segs[fixed:])
	sort.Strings(out)
	return out, at, from, nil
}

// contained reports whether a match may be read: inside the workspace
// without a link that leads out, or in the repository, whose read-only
// Root refuses links that leave it on every read.
func contained(ws *workspace.Workspace, p string, shared bool) bool {
	if shared {
		return true
	}
	rel, err := filepath.Rel(ws.Root, p)
	if err != nil {
		return false
	}
	_, err = ws.Resolve(ws.Root, filepath.ToSlash(rel))
	return err == nil
}

// patternTail counts the segments of pattern from the first that holds a
// wildcard to the end.
func patternTail(pattern string) int {
	segs := strings.Split(strings.Trim(path.Clean(filepath.ToSlash(pattern)), "/"), "/")
	for i, seg := range segs {
		if hasMeta(seg) {
			return len(segs) - i
		}
	}
	return 0
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
