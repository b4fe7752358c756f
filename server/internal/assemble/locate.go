package assemble

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Located is where a file input leads on disk. check and the loader both
// read inputs through Locate, so what icm reports and what it loads agree.
type Located struct {
	// Abs and Rel are the path as written, resolved against the stage
	// folder (for a glob or a placeholder, the pattern).
	Abs, Rel string
	// Exists says the file or folder is there (for a pattern: that it
	// matched, and for a placeholder that it matched exactly one).
	Exists bool
	// Dir is set when the input is a folder.
	Dir bool
	// Files are the files to load, absolute and sorted.
	Files []string
	// More is set when a folder holds more files than are loaded
	// (workspace.MaxFolderFiles).
	More bool
	// Matches are the workspace-relative paths a glob or placeholder matched.
	Matches []string
	// Own is set when the input lies in the stage's own output/ folder: the
	// previous version of what the stage writes.
	Own bool
	// Shared is set when the input lies outside the workspace, in the
	// repository above it: read-only.
	Shared bool
	// Base is where the path was found (or, missing, looked for first):
	// the stage folder, the workspace root, the stages folder or the
	// repository root.
	Base workspace.Base
	// Tried are the places the path was looked for, in order, as InputRel
	// names them.
	Tried []string
	// Unset names the setup-time variables the path needs and that have no
	// value: nothing is looked for until they are set.
	Unset []string
}

// Locate resolves a file input of stage st (see LocateWith).
func Locate(ws *workspace.Workspace, st *workspace.Stage, in contract.Input) (*Located, error) {
	return LocateWith(ws, st, in, nil)
}

// LocateWith resolves a file input of stage st through the workspace's
// one resolver (workspace.FindInput: the stage folder, the workspace root,
// the stages folder, the repository root). The error is an escape (the
// path leaves the workspace, and its repository); a missing file is
// Exists false. produced, when not nil, says whether a stage declares a
// workspace-relative path as its output: a path that exists under no base
// is then taken under the first base whose spelling a stage writes, so an
// input and an output spelled the same way match.
func LocateWith(ws *workspace.Workspace, st *workspace.Stage, in contract.Input, produced func(rel string) bool) (*Located, error) {
	l := &Located{}
	switch {
	case len(in.Unset) > 0:
		// A setup-time variable with no value: never a wildcard.
		l.Unset = in.Unset
		l.Abs = filepath.Join(st.Dir, filepath.FromSlash(in.Path))
		l.Rel, l.Base = ws.Rel(l.Abs), workspace.BaseStage
		l.Tried = []string{l.Rel}
	case in.Templated || in.Glob:
		pattern := in.Path
		switch {
		case in.Templated && in.Glob:
			pattern = contract.PlaceholderPattern(in.Path)
		case in.Templated:
			pattern = contract.PlaceholderGlob(in.Path)
		}
		matches, at, base, err := Glob(ws, st.Dir, pattern)
		if err != nil {
			return nil, err
		}
		l.Abs, l.Rel, l.Shared, l.Base = at, ws.InputRel(at), ws.Shared(at), base
		if in.Templated {
			// Shown as written, with its placeholders: the resolved folders
			// before the first one, then the contract's own segments.
			tail := patternTail(pattern)
			dir := at
			for range tail {
				dir = filepath.Dir(dir)
			}
			segs := strings.Split(strings.Trim(path.Clean(filepath.ToSlash(in.Path)), "/"), "/")
			l.Abs = filepath.Join(append([]string{dir}, segs[max(0, len(segs)-tail):]...)...)
			l.Rel = ws.InputRel(l.Abs)
		}
		for _, m := range matches {
			l.Matches = append(l.Matches, ws.InputRel(m))
		}
		l.Tried = []string{l.Rel}
		switch {
		case in.Glob:
			// A glob loads every file it matches, placeholders or not.
			l.Files, l.Exists = matches, len(matches) > 0
		case len(matches) == 1:
			l.Exists = true
			l.fill(ws, matches[0], strings.HasSuffix(pattern, "/"))
		}
	default:
		f, tried, err := ws.FindInput(st.Dir, in.Path)
		if err != nil {
			return nil, err
		}
		if len(tried) == 1 {
			l.Tried = []string{ws.InputRel(f.Abs)}
		} else {
			for _, t := range tried {
				l.Tried = append(l.Tried, ws.InputRel(t.Abs))
			}
		}
		if !f.Exists && produced != nil {
			for i, t := range tried {
				if produced(l.Tried[i]) {
					f = t
					break
				}
			}
		}
		l.Abs, l.Shared, l.Base = f.Abs, f.Shared, f.Base
		if len(tried) == 1 && tried[0].Abs == f.Abs {
			l.Rel = l.Tried[0]
		} else {
			l.Rel = ws.InputRel(f.Abs)
		}
		if f.Exists && f.Info != nil {
			l.Exists = true
			l.fill(ws, f.Abs, f.Info.IsDir())
		}
	}
	l.Own = OwnOutput(st, l.Rel)
	return l, nil
}

// fill records the file or folder found at abs as what is loaded.
func (l *Located) fill(ws *workspace.Workspace, abs string, dir bool) {
	if dir {
		l.Dir = true
		l.Files, l.More, _ = ws.FolderFiles(abs)
		return
	}
	l.Files = []string{abs}
}

// OwnOutput reports whether the workspace-relative path rel lies in the
// output/ folder of stage st.
func OwnOutput(st *workspace.Stage, rel string) bool {
	own := path.Join(st.Rel, workspace.OutputDir)
	return rel == own || strings.HasPrefix(rel, own+"/")
}

// Producer looks rel up in a map of declared outputs: rel itself, or the
// nearest folder holding it (a stage that declares `output/final/` writes
// whatever is in it).
func Producer[V any](declared map[string]V, rel string) (V, bool) {
	for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if v, ok := declared[p]; ok {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// PatternProducer names the stage whose declared output, holding
// placeholders, lines up with the path rel holding placeholders
// ("output/[slug].md" and "output/<name>.md" do), or "".
func PatternProducer(declared map[string]string, rel string) string {
	if p, ok := declared[rel]; ok {
		return p
	}
	want := patternKey(rel)
	best := ""
	for out := range declared {
		if patternKey(out) == want && (best == "" || out < best) {
			best = out
		}
	}
	return declared[best]
}

// GlobProducer names the stage declaring an output that the glob rel
// matches ("output/page-*.md" matches "output/page-01.md"), or whose
// placeholders line up with it ("output/page-[n].md"), or "". Of several,
// the first by path.
func GlobProducer(declared map[string]string, rel string) string {
	if p := PatternProducer(declared, rel); p != "" {
		return p
	}
	best := ""
	for out := range declared {
		if ok, _ := path.Match(rel, out); ok && (best == "" || out < best) {
			best = out
		}
	}
	return declared[best]
}

// patternKey writes a path with placeholders as a pattern in which every
// placeholder and every * is one wildcard, so that
// "output/[slug]-cd-[env].yml" and "output/[slug]-cd-*.yml" line up.
// Folders that are each a whole wildcard count as one, since a
// placeholder may stand for several folders: "content/{level}/{module}/x.md"
// and "content/{module_path}/x.md" line up.
func patternKey(p string) string {
	segs := strings.Split(strings.ReplaceAll(contract.PlaceholderGlob(p), `\*`, "*"), "/")
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		if s == "*" && len(out) > 0 && out[len(out)-1] == "*" {
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, "/")
}

// SpanningPattern is the pattern for a path holding placeholders in
// which each placeholder that is a whole folder may stand for one folder
// or more ("archive/{season}/summary.md" fits
// "archive/2023/spring/summary.md"), or "" when no placeholder is a whole
// folder.
func SpanningPattern(p string) string {
	segs := strings.Split(contract.PlaceholderGlob(p), "/")
	spans := false
	for i, s := range segs[:len(segs)-1] {
		if s == "*" {
			segs[i], spans = "**/*", true
		}
	}
	if !spans {
		return ""
	}
	return strings.Join(segs, "/")
}
