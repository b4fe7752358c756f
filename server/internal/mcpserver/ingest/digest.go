// Package ingest is icm's MCP server for source material that is not a web
// page: a code repository (a folder in the workspace, or a git URL cloned
// shallowly) becomes one digest a model can read (a tree and the files,
// honouring .gitignore, binary files skipped, sizes capped), and local
// files (Markdown, text, HTML, PDF) become text.
package ingest

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	ignore "github.com/sabhiram/go-gitignore"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Limits bound a digest.
type Limits struct {
	// MaxChars caps the whole digest.
	MaxChars int
	// MaxFileChars caps one file's text.
	MaxFileChars int
	// MaxFiles caps how many files are walked.
	MaxFiles int
}

// DefaultLimits fit a digest into a model's tool result.
var DefaultLimits = Limits{MaxChars: 60000, MaxFileChars: 12000, MaxFiles: 2000}

// Digest is a repository read for a model.
type Digest struct {
	Text string
	// Files lists the files included, Skipped those left out and why.
	Files   []string
	Skipped map[string]string
	// Truncated says the digest hit MaxChars.
	Truncated bool
}

// alwaysSkipped are folders no digest wants.
var alwaysSkipped = map[string]bool{".git": true, "node_modules": true, ".venv": true, "__pycache__": true, ".icm": true}

// DigestDir reads the repository at root. Files that a .gitignore (at any
// level) excludes are left out, and so are binary files and anything past
// the limits; symlinks are not followed. Everything is read through a Root
// of the folder: only regular files, each only as far as MaxFileChars
// needs, so a huge file costs its first few KB.
func DigestDir(root, name string, lim Limits) (*Digest, error) {
	if lim.MaxChars <= 0 {
		lim = DefaultLimits
	}
	r, err := workspace.OpenRoot(root, workspace.RootOptions{ReadOnly: true, MaxRead: maxWholeFile})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return digest(r, name, lim)
}

func digest(root *workspace.Root, name string, lim Limits) (*Digest, error) {
	d := &Digest{Skipped: map[string]string{}}
	type rule struct {
		dir string
		gi  *ignore.GitIgnore
	}
	var rules []rule
	ignored := func(rel string, isDir bool) bool {
		for _, r := range rules {
			sub := rel
			if r.dir != "." {
				if !strings.HasPrefix(rel, r.dir+"/") {
					continue
				}
				sub = strings.TrimPrefix(rel, r.dir+"/")
			}
			if r.gi.MatchesPath(sub) || (isDir && r.gi.MatchesPath(sub+"/")) {
				return true
			}
		}
		return false
	}
	var files []string
	err := root.WalkDir(".", func(rel string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			if rel != "." && (alwaysSkipped[e.Name()] || ignored(rel, true)) {
				return fs.SkipDir
			}
			if data, err := root.ReadFileMax(path.Join(rel, ".gitignore"), 1<<20); err == nil {
				rules = append(rules, rule{dir: rel, gi: ignore.CompileIgnoreLines(strings.Split(string(data), "\n")...)})
			}
			return nil
		}
		if !e.Type().IsRegular() || ignored(rel, false) {
			return nil
		}
		if len(files) >= lim.MaxFiles {
			d.Skipped[rel] = "over the file limit"
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var body strings.Builder
	for _, rel := range files {
		data, size, err := readHead(root, rel, lim.MaxFileChars)
		if err != nil {
			d.Skipped[rel] = "unreadable"
			continue
		}
		if document.IsBinary(data) {
			d.Skipped[rel] = "binary"
			continue
		}
		text := string(data)
		if size > int64(lim.MaxFileChars) {
			text = cutRunes(text, lim.MaxFileChars) + fmt.Sprintf("\n[... %d more characters not shown]\n", size-int64(lim.MaxFileChars))
		}
		entry := fmt.Sprintf("================================\nFile: %s\n================================\n%s\n\n", rel, strings.TrimRight(text, "\n"))
		if body.Len()+len(entry) > lim.MaxChars {
			d.Truncated = true
			d.Skipped[rel] = "over the digest's size limit"
			continue
		}
		body.WriteString(entry)
		d.Files = append(d.Files, rel)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Repository: %s\nFiles included: %d", name, len(d.Files))
	if len(d.Skipped) > 0 {
		fmt.Fprintf(&b, " (%d left out: binary, ignored by size or limits)", len(d.Skipped))
	}
	b.WriteString("\n\nDirectory structure:\n")
	b.WriteString(tree(name, d.Files))
	b.WriteString("\n")
	b.WriteString(body.String())
	if d.Truncated {
		b.WriteString("[The digest reached its size limit; some files are listed in the tree but not shown.]\n")
	}
	d.Text = b.String()
	return d, nil
}

func cutRunes(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tree draws the included files as an indented tree.
func tree(name string, files []string) string {
	var b strings.Builder
	b.WriteString(name + "/\n")
	seen := map[string]bool{}
	for _, f := range files {
		parts := strings.Split(f, "/")
		for i := range parts {
			p := path.Join(parts[:i+1]...)
			if seen[p] {
				continue
			}
			seen[p] = true
			suffix := ""
			if i < len(parts)-1 {
				suffix = "/"
			}
			fmt.Fprintf(&b, "%s%s%s\n", strings.Repeat("    ", i+1), parts[i], suffix)
		}
	}
	return b.String()
}
