package workspace

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
)

// People lay out their stages in more than one way: numbered folders in
// pipeline/ or stages/ (the method's), at the workspace root (00_brief/,
// 01-draft/, sometimes beside a stages/ folder that only holds outputs),
// or in a folder of another name. icm takes the layout whose folders hold
// the contracts, and says why when another was there too.

// layout is the stages folder chosen, how it was found, and why when
// there was another to choose.
type layout struct {
	dir, from, why string
}

// candidate is a folder that may hold the stages, with how many numbered
// folders holding a CONTEXT.md it has (n), and how many numbered folders
// at all.
type candidate struct {
	dir, from   string
	n, numbered int
}

func newCandidate(r *Root, dir, from string) candidate {
	return candidate{dir: dir, from: from, n: countStages(r, dir), numbered: countNumbered(r, dir)}
}

// chooseLayout picks the folder holding the stages: the one config.toml
// names; else, of pipeline/, stages/, the workspace root and the other
// top-level folder holding the most, the one holding the most numbered
// folders with a CONTEXT.md (the earlier in that order on a tie); else,
// when none holds one, pipeline/ or stages/ if there is one. The zero
// layout means there is none.
func chooseLayout(r *Root, cfg config.Config) layout {
	if s := strings.Trim(filepath.ToSlash(filepath.Clean(cfg.Workspace.Stages)), "/"); cfg.Workspace.Stages != "" && s != "" {
		return layout{dir: s, from: StagesConfigured}
	}
	var cands []candidate
	for _, s := range stageDirs {
		if dirThere(r, s) {
			cands = append(cands, newCandidate(r, s, StagesDefault))
		}
	}
	cands = append(cands, newCandidate(r, ".", StagesRoot))
	if s := findStagesFolder(r, "."); s != "" && !isDefaultStagesDir(s) {
		cands = append(cands, newCandidate(r, s, StagesFound))
	}
	best := -1
	for i, c := range cands {
		if c.n > 0 && (best < 0 || c.n > cands[best].n) {
			best = i
		}
	}
	if best < 0 {
		if cands[0].from == StagesDefault {
			return layout{dir: cands[0].dir, from: StagesDefault} // its stages are yet to be written
		}
		return layout{}
	}
	return layout{dir: cands[best].dir, from: cands[best].from, why: why(cands, best)}
}

// isDefaultStagesDir reports whether a top-level folder is pipeline/ or stages/.
func isDefaultStagesDir(name string) bool {
	for _, s := range stageDirs {
		if name == s {
			return true
		}
	}
	return false
}

// countNumbered counts the numbered folders of dir (below r), with a
// CONTEXT.md or not.
func countNumbered(r *Root, dir string) int {
	entries, err := r.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && stagePattern.MatchString(e.Name()) {
			n++
		}
	}
	return n
}

// why says, when another folder of numbered folders was there, why icm
// took the one it did: it holds the contracts, the other fewer or none (a
// stages/ folder that only holds outputs).
func why(cands []candidate, chosen int) string {
	var others []string
	tie := false
	for i, c := range cands {
		switch {
		case i == chosen || c.numbered == 0:
		case c.n == 0:
			others = append(others, fmt.Sprintf("the numbered folders %s hold no %s", where(c), ContractFile))
		default:
			others = append(others, fmt.Sprintf("%s of the numbered folders %s %s one", strconv.Itoa(c.n), where(c), verb(c.n, "holds", "hold")))
			tie = tie || c.n == cands[chosen].n
		}
	}
	if len(others) == 0 {
		return ""
	}
	n := cands[chosen].n
	out := fmt.Sprintf("%d of them %s a %s; %s", n, verb(n, "holds", "hold"), ContractFile, strings.Join(others, "; "))
	if tie {
		// Holding as many, the first of pipeline/, stages/, the root is
		// used: say so, or the choice reads as arbitrary.
		out += fmt.Sprintf(": %s holds as many, and comes first of pipeline/, stages/ and the root", strings.TrimPrefix(where(cands[chosen]), "in "))
	}
	return out
}

// verb is one for a count of one, else some.
func verb(n int, one, some string) string {
	if n == 1 {
		return one
	}
	return some
}

// where names a candidate folder as a sentence does.
func where(c candidate) string {
	if c.dir == "." {
		return "at the workspace root"
	}
	return "in " + c.dir + "/"
}
