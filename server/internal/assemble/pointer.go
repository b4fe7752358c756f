package assemble

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Some authors keep their instructions in AGENTS.md, which any coding
// agent can be pointed at, and write a CLAUDE.md of a few sentences that
// says to read it. Claude Code then reads AGENTS.md; so does icm: an
// identity file that is a pointer brings in the file it points to, after
// its own words.

// maxPointerBytes is the most a file that only points elsewhere holds:
// a few sentences. A longer identity file is instructions of its own,
// even when it names another entry file in passing.
const maxPointerBytes = 2000

// entryNames are the names of the files agents read first, lower case.
var entryNames = []string{"claude.md", "agents.md", "gemini.md"}

// pointedEntry returns the workspace-relative entry file that the
// identity file rel (read as text, with the includes incs) points to: a
// short file naming exactly one other entry file, which exists beside it
// or where the name leads, and which no `@` line brought in already.
func pointedEntry(ws *workspace.Workspace, rel, text string, incs []Include) (string, bool) {
	if len(text) > maxPointerBytes {
		return "", false
	}
	dir := filepath.Join(ws.Root, filepath.FromSlash(path.Dir(rel)))
	found := ""
	for _, m := range contract.MentionsIn(text) {
		if !isEntryName(path.Base(m.Path)) {
			continue
		}
		abs, err := ws.Resolve(dir, m.Path)
		if err != nil {
			continue
		}
		target := ws.Rel(abs)
		if target == rel || included(incs, target) {
			continue
		}
		if info, err := ws.Disk.Stat(abs); err != nil || !info.Mode().IsRegular() {
			continue
		}
		if found != "" && found != target {
			return "", false // it names several: a list, not a pointer
		}
		found = target
	}
	return found, found != ""
}

func isEntryName(name string) bool {
	for _, n := range entryNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

func included(incs []Include, rel string) bool {
	for _, inc := range incs {
		if inc.Err == nil && inc.Rel == rel {
			return true
		}
	}
	return false
}

// followPointer adds to the identity file's text the entry file it
// points to (pointedEntry), with that file's own includes; text and incs
// as they are when it points nowhere.
func followPointer(ws *workspace.Workspace, rel, text string, incs []Include) (string, []Include) {
	target, ok := pointedEntry(ws, rel, text, incs)
	if !ok {
		return text, incs
	}
	more, moreIncs, err := Layered(ws, target)
	if err != nil {
		return text, incs
	}
	incs = append(incs, Include{File: rel, Path: target, Rel: target})
	return strings.TrimRight(text, "\n") + "\n\n" + more, append(incs, moreIncs...)
}

// Brought lists the files the identity and routing files bring into the
// prompt (their `@path` lines, the file a pointer leads to),
// workspace-relative: a run reads them too.
func Brought(ws *workspace.Workspace) []string {
	var out []string
	for _, name := range []string{ws.Identity, workspace.RoutingFile} {
		if name == "" {
			continue
		}
		text, incs, err := Layered(ws, name)
		if err != nil {
			continue
		}
		if name == ws.Identity {
			_, incs = followPointer(ws, name, text, incs)
		}
		for _, inc := range incs {
			if inc.Err == nil {
				out = append(out, inc.Rel)
			}
		}
	}
	return out
}
