package assemble

import (
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/textnorm"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// A CLAUDE.md may be nothing but `@AGENTS.md`: Claude Code reads a line
// of the form `@path` as "include that file here". icm follows such lines
// in the identity and routing files, so the model gets the text they
// point at rather than the nine bytes of the pointer.

// includeLine matches a line that is only `@path` (a file name with an
// extension, or a path with a slash).
var includeLine = regexp.MustCompile(`(?m)^[ \t]*@((?:[^\s@/]+/)*[^\s@/]+\.[A-Za-z0-9]{1,10})[ \t]*\r?$`)

// maxIncludeDepth bounds how deep includes nest (Claude Code stops at
// five hops).
const maxIncludeDepth = 5

// Include is one `@path` line of a file icm loads as layer 0 or 1.
type Include struct {
	// File is the workspace-relative file the line is in; Line its 1-based
	// line number there.
	File string
	Line int
	// Path is the path as written after the @; Rel where it led, relative
	// to the workspace.
	Path, Rel string
	// Err says why it was not followed (a missing file, a path out of the
	// workspace, a loop), or nil.
	Err error
}

// Layered reads the workspace file rel (its identity or routing file) as
// the model receives it: normalised, with each `@path` line replaced by
// the file it names (relative to the including file, inside the
// workspace, to a bounded depth). It returns the text and every include
// met, followed or not.
func Layered(ws *workspace.Workspace, rel string) (string, []Include, error) {
	data, err := ws.Files.ReadFile(filepath.Join(ws.Root, filepath.FromSlash(rel)))
	if err != nil {
		return "", nil, err
	}
	var incs []Include
	text := expandIncludes(ws, rel, string(textnorm.Text(data)), 0, map[string]bool{rel: true}, &incs)
	return text, incs, nil
}

func expandIncludes(ws *workspace.Workspace, rel, text string, depth int, open map[string]bool, incs *[]Include) string {
	if !strings.Contains(text, "@") {
		return text
	}
	dir := filepath.Join(ws.Root, filepath.FromSlash(path.Dir(rel)))
	return includeLine.ReplaceAllStringFunc(text, func(line string) string {
		m := includeLine.FindStringSubmatch(line)
		inc := Include{File: rel, Line: lineOf(text, line), Path: m[1]}
		defer func() { *incs = append(*incs, inc) }()
		if depth >= maxIncludeDepth {
			inc.Err = errIncludeDepth
			return line
		}
		abs, err := ws.Resolve(dir, m[1])
		if err != nil {
			inc.Err = err
			return line
		}
		inc.Rel = ws.Rel(abs)
		if open[inc.Rel] {
			inc.Err = errIncludeLoop
			return line
		}
		data, err := ws.Files.ReadFile(abs)
		if err != nil {
			inc.Err = err
			return line
		}
		open[inc.Rel] = true
		defer delete(open, inc.Rel)
		return strings.TrimRight(expandIncludes(ws, inc.Rel, string(textnorm.Text(data)), depth+1, open, incs), "\n")
	})
}

// lineOf returns the 1-based line of the first occurrence of line in text.
func lineOf(text, line string) int {
	i := strings.Index(text, line)
	if i < 0 {
		return 0
	}
	return strings.Count(text[:i], "\n") + 1
}

type includeError string

func (e includeError) Error() string { return string(e) }

// Fault is an include icm will not follow, with the fix.
func (e includeError) Fault() *fault.Error {
	return fault.Failed(string(e), "include each file once, and nest includes less deeply", nil)
}

const (
	errIncludeDepth = includeError("includes nest too deep")
	errIncludeLoop  = includeError("it includes itself")
)
