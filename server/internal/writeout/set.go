package writeout

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
)

// MaxFiles bounds the files one run may write.
const MaxFiles = 200

// MaxOpenFiles bounds the files a run may write into output/ when the
// contract names none.
const MaxOpenFiles = 20

// openName is the pattern of the names a constrained sampler may write
// for a stage whose contract names no output file.
const openName = `output/[a-z0-9][a-z0-9-]{0,40}\.[a-z]{1,5}`

// Normalize turns a path the model wrote into one relative to the stage
// folder ("output/x.md"), refusing what cannot be an output there: an
// empty or absolute path, a backslash, a ".." or empty part. stageRel is
// the stage's workspace-relative folder, which the model may have put in
// front; a path without output/ in front is taken to mean a file in it.
// Hidden names are judged by Set.Accept, against what the contract names.
func Normalize(stageRel, p string) (string, error) {
	raw := p
	p, err := plain(p)
	if err != nil {
		return "", err
	}
	if stageRel != "" && strings.HasPrefix(p, stageRel+"/") {
		p = strings.TrimPrefix(p, stageRel+"/")
	}
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "..":
			return "", fmt.Errorf("%q climbs out with ..: name a file inside output/", raw)
		case "", ".":
			return "", fmt.Errorf("%q has an empty part: name a file inside output/", raw)
		}
	}
	if !strings.HasPrefix(p, "output/") {
		p = "output/" + p
	}
	return path.Clean(p), nil
}

// plain is p without the quotes, spaces and "./" a model puts around a
// path, refusing what is not a plain relative path.
func plain(raw string) (string, error) {
	p := strings.TrimSpace(strings.Trim(strings.TrimSpace(raw), "`\"'"))
	switch {
	case p == "":
		return "", fmt.Errorf("the path is empty: name a file inside output/")
	case strings.ContainsAny(p, "\\\x00") || strings.ContainsRune(p, ':'):
		return "", fmt.Errorf("%q is not a plain relative path: use forward slashes and no drive or scheme", raw)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~"):
		return "", fmt.Errorf("%q is an absolute path: name a file inside output/", raw)
	}
	return strings.TrimPrefix(p, "./"), nil
}

// Set is the declared outputs of one stage and the files written for
// them so far.
type Set struct {
	stageRel string
	targets  []Target
	maxSize  int
	files    map[string][]byte
	order    []string
	// undeclared are the files written into output/ of a contract that
	// names none; taken says a file is there and no run of icm wrote it.
	undeclared map[string]bool
	taken      func(rel string) bool
	// contain refuses a path outside output/ that leads where nothing is
	// written (out of the workspace, into icm's own folders).
	contain func(rel string) error
}

// NewSet prepares the writes of one run of a stage (stageRel is its
// workspace-relative folder); maxSize caps one file's bytes (0: no cap).
func NewSet(stageRel string, c *contract.Contract, maxSize int) *Set {
	return &Set{stageRel: stageRel, targets: Targets(c), maxSize: maxSize, files: map[string][]byte{}, undeclared: map[string]bool{}}
}

// Protect names the files of output/ a write may not replace when the
// contract names none (taken reports one by its path relative to the
// stage folder): what is there and was not written by a run of icm.
func (s *Set) Protect(taken func(rel string) bool) *Set {
	s.taken = taken
	return s
}

// Contain names the check a path outside output/ must pass besides
// fitting an output the contract names there (rel is relative to the
// stage folder): the run's, that it stays inside the workspace.
func (s *Set) Contain(check func(rel string) error) *Set {
	s.contain = check
	return s
}

// Keep takes a file a run of icm wrote before as accepted, unchecked:
// the part of a partial answer a run for the rest leaves as it is.
func (s *Set) Keep(rel string, content []byte) {
	if _, seen := s.files[rel]; !seen {
		s.order = append(s.order, rel)
	}
	s.files[rel] = content
}

// Open reports whether the contract names no output file, so the model
// writes new files into output/ under names of its own.
func (s *Set) Open() bool { return len(s.targets) == 0 }

// Accept checks a path and keeps content for it, replacing an earlier
// write of the same path. It returns the path relative to the stage
// folder, or an error that says what the model may write instead.
func (s *Set) Accept(p, content string) (string, error) {
	if contract.NonText(strings.TrimSpace(strings.Trim(strings.TrimSpace(p), "`\"'"))) {
		return "", checkKind(p, content)
	}
	rel, t, err := s.place(p)
	if err != nil {
		return "", err
	}
	if s.maxSize > 0 && len(content) > s.maxSize {
		return "", fmt.Errorf("%s is %d bytes, over the %d-byte limit of one output", rel, len(content), s.maxSize)
	}
	if err := checkKind(rel, content); err != nil {
		return "", err
	}
	if _, seen := s.files[rel]; !seen {
		if len(s.files) >= MaxFiles {
			return "", fmt.Errorf("this run has written %d files already, the most one run may write", MaxFiles)
		}
		if t == nil {
			if s.taken != nil && s.taken(rel) {
				return "", fmt.Errorf("%s is already there and no run of icm wrote it: it is not overwritten; name a new file", rel)
			}
			if len(s.undeclared) >= MaxOpenFiles {
				return "", fmt.Errorf("this run has written %d files into output/ already, the most a stage that names none may write", MaxOpenFiles)
			}
			s.undeclared[rel] = true
		}
		s.order = append(s.order, rel)
	}
	s.files[rel] = []byte(content)
	return rel, nil
}

// place finds where a written path goes: the declared output it fits
// (nil for a new file of a contract that names none) and its path
// relative to the stage folder.
func (s *Set) place(p string) (string, *Target, error) {
	if rel, t, ok, err := s.outside(p); ok || err != nil {
		return rel, t, err
	}
	rel, err := Normalize(s.stageRel, p)
	if err != nil {
		return "", nil, err
	}
	for i := range s.targets {
		if t := &s.targets[i]; !t.External && t.Fits(rel) {
			return rel, t, s.hidden(rel, t)
		}
	}
	if err := s.hidden(rel, nil); err != nil || s.Open() {
		return rel, nil, err
	}
	return "", nil, fmt.Errorf("%s fits none of this stage's outputs; write %s", rel, s.describeAll())
}

// outside places a path that fits an output the contract names outside
// output/; ok is false when none does and the path is not one that
// climbs out (which only such an output may).
func (s *Set) outside(raw string) (string, *Target, bool, error) {
	p, err := plain(raw)
	if err != nil {
		return "", nil, false, err
	}
	clean := path.Clean(p)
	climbs := clean == ".." || strings.HasPrefix(clean, "../")
	for i := range s.targets {
		if t := &s.targets[i]; t.External && t.Fits(clean) {
			if err := s.hidden(clean, t); err != nil {
				return "", nil, true, err
			}
			if s.contain != nil {
				if err := s.contain(clean); err != nil {
					return "", nil, true, err
				}
			}
			return clean, t, true, nil
		}
	}
	if climbs && s.hasExternal() {
		return "", nil, true, fmt.Errorf("%s fits none of this stage's outputs; write %s", clean, s.describeAll())
	}
	return "", nil, false, nil
}

func (s *Set) hasExternal() bool {
	for _, t := range s.targets {
		if t.External {
			return true
		}
	}
	return false
}

// hidden refuses a path with a hidden part the output it fits does not
// name itself (output/.env.example declared is written; a hidden name
// filled into a placeholder, or any in a file of a contract that names
// none, is not).
func (s *Set) hidden(rel string, t *Target) error {
	declared := map[string]bool{}
	if t != nil {
		for _, part := range strings.Split(t.Path, "/") {
			declared[part] = true
		}
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != ".." && !declared[part] {
			return fmt.Errorf("%q names a hidden file or folder, which icm does not write", rel)
		}
	}
	return nil
}

func (s *Set) describeAll() string {
	d := make([]string, len(s.targets))
	for i, t := range s.targets {
		d[i] = t.Describe()
	}
	return strings.Join(d, "; or ")
}

// Order lists the accepted paths in the order they were first written.
func (s *Set) Order() []string { return s.order }

// Files returns the accepted files by path relative to the stage folder.
func (s *Set) Files() map[string][]byte { return s.files }

// Len is the number of files accepted so far.
func (s *Set) Len() int { return len(s.files) }

// External reports whether an accepted path (relative to the stage
// folder) lies outside output/: a change the person approves.
func (s *Set) External(rel string) bool {
	_, in := s.files[rel]
	return in && !strings.HasPrefix(rel, "output/")
}

// Undeclared lists, sorted, the files written into output/ of a contract
// that names none.
func (s *Set) Undeclared() []string {
	out := make([]string, 0, len(s.undeclared))
	for rel := range s.undeclared {
		out = append(out, rel)
	}
	sort.Strings(out)
	return out
}

// Missing lists the declared outputs no accepted file fits yet.
func (s *Set) Missing() []Target {
	var out []Target
	for _, t := range s.targets {
		found := false
		for rel := range s.files {
			found = found || t.Fits(rel)
		}
		if !found {
			out = append(out, t)
		}
	}
	return out
}

// Status is the tool's answer after an accepted write: what was written
// and what is still to write.
func (s *Set) Status(rel string, size int) string {
	msg := fmt.Sprintf("Written %s (%d bytes).", rel, size)
	if s.External(rel) {
		msg = fmt.Sprintf("Proposed %s (%d bytes): the person sees it as a change and applies it when they approve.", rel, size)
	}
	if m := s.Missing(); len(m) > 0 {
		d := make([]string, len(m))
		for i, t := range m {
			d[i] = t.Describe()
		}
		return msg + " Still to write: " + strings.Join(d, "; ") + "."
	}
	if s.Open() {
		return msg + " Write more files only if the task asks for them, then give a one-line summary as your final answer."
	}
	return msg + " Every declared output has a file now; write more only if the task asks for them, then give a one-line summary as your final answer."
}
