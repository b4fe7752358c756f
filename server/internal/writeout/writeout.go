// Package writeout lets the model name the files a stage writes. A stage
// whose outputs hold placeholders (output/[slug]-brief.md), name folders
// (output/site/) or are several files cannot take the model's one answer
// as its output: the model writes each file through one tool,
// write_output(path, content), or, when it cannot call tools, answers in
// a strict plain format. Every path is checked against the declared
// outputs before anything is kept: it must lie inside the stage's output/
// folder and fit one of them (its name, its pattern, or its folder).
package writeout

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
)

// ToolName is the name of the write tool the model is offered.
const ToolName = "write_output"

// MaxFiles bounds the files one run may write.
const MaxFiles = 200

// Needed reports whether a model stage writes through the write tool: it
// has no For each (each item's answer goes to its one file) and its
// outputs hold a placeholder, name a folder, or are more than one file.
// A stage whose one output is a plain name keeps the answer as the output.
func Needed(c *contract.Contract) bool {
	if c == nil || c.Script != nil || c.ForEach != nil {
		return false
	}
	n := 0
	for _, o := range c.Outputs {
		if o.NonFile || o.Path == "" {
			continue
		}
		if o.Templated || o.Dir {
			return true
		}
		n++
	}
	return n > 1
}

// Target is one declared output a written file may fit.
type Target struct {
	// Path is the declared output, relative to the stage folder
	// ("output/[slug]-brief.md", "output/site").
	Path string
	// Dir: any file below Path fits; Pattern: Path holds placeholders.
	Dir, Pattern bool
	re           *regexp.Regexp
}

// Targets lists the declared file outputs of a contract.
func Targets(c *contract.Contract) []Target {
	var out []Target
	for _, o := range c.Outputs {
		if o.NonFile || o.Path == "" {
			continue
		}
		t := Target{Path: o.Path, Dir: o.Dir, Pattern: o.Templated || hasDateToken(o.Path)}
		t.re = regexp.MustCompile("^" + patternRegexp(o.Path) + map[bool]string{true: "/.+", false: ""}[o.Dir] + "$")
		out = append(out, t)
	}
	return out
}

// Describe is how a target reads in the tool's description and errors:
// "output/[slug]-brief.md (fill in [slug])", "any file in output/site/".
func (t Target) Describe() string {
	switch {
	case t.Dir:
		return "any file in " + t.Path + "/"
	case t.Pattern:
		return t.Path + " (fill in " + strings.Join(placeholdersOf(t.Path), ", ") + ")"
	}
	return t.Path
}

// namePattern is a regular expression of the names the schema lets a
// constrained sampler write for the target: its placeholders as
// lowercase hyphenated names, a folder's files as such a name with an
// extension.
func (t Target) namePattern() string {
	const name = `[a-z0-9][a-z0-9-]{0,40}`
	var b strings.Builder
	last := 0
	for _, m := range tokens(t.Path) {
		b.WriteString(regexp.QuoteMeta(t.Path[last:m[0]]))
		switch tok := t.Path[m[0]:m[1]]; tok {
		case "YYYY-MM-DD":
			b.WriteString(`[0-9]{4}-[0-9]{2}-[0-9]{2}`)
		case "YYYYMMDD":
			b.WriteString(`[0-9]{8}`)
		case "YYYY-MM":
			b.WriteString(`[0-9]{4}-[0-9]{2}`)
		case "YYYY":
			b.WriteString(`[0-9]{4}`)
		default:
			b.WriteString(name)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(t.Path[last:]))
	if t.Dir {
		b.WriteString(`/` + name + `\.[a-z]{1,5}`)
	}
	return b.String()
}

// Fits reports whether p (relative to the stage folder) fits the target.
func (t Target) Fits(p string) bool { return t.re.MatchString(p) }

var (
	placeholderRe = regexp.MustCompile(`\[[^\]/]+\]|\{\{[^}/]*\}\}|<[^>/]+>|\{[^{}/]+\}`)
	dateRe        = regexp.MustCompile(`YYYY-MM-DD|YYYYMMDD|YYYY-MM|YYYY`)
)

func hasDateToken(p string) bool { return dateRe.MatchString(p) }

// patternRegexp turns a declared path into a regular expression: each
// placeholder matches a name without slashes, a date written as
// YYYY-MM-DD matches digits, the rest stands for itself.
func patternRegexp(p string) string {
	var b strings.Builder
	last := 0
	for _, m := range tokens(p) {
		b.WriteString(regexp.QuoteMeta(p[last:m[0]]))
		switch tok := p[m[0]:m[1]]; tok {
		case "YYYY-MM-DD":
			b.WriteString(`\d{4}-\d{2}-\d{2}`)
		case "YYYYMMDD":
			b.WriteString(`\d{8}`)
		case "YYYY-MM":
			b.WriteString(`\d{4}-\d{2}`)
		case "YYYY":
			b.WriteString(`\d{4}`)
		default:
			b.WriteString(`[^/]+`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(p[last:]))
	return b.String()
}

// tokens finds the placeholders and date tokens of p, in order.
func tokens(p string) [][]int {
	all := append(placeholderRe.FindAllStringIndex(p, -1), dateRe.FindAllStringIndex(p, -1)...)
	sort.Slice(all, func(i, j int) bool { return all[i][0] < all[j][0] })
	var out [][]int
	end := 0
	for _, m := range all {
		if m[0] >= end {
			out = append(out, m)
			end = m[1]
		}
	}
	return out
}

func placeholdersOf(p string) []string {
	var out []string
	for _, m := range tokens(p) {
		out = append(out, p[m[0]:m[1]])
	}
	return out
}

// Normalize turns a path the model wrote into one relative to the stage
// folder ("output/x.md"), refusing what cannot be an output: an empty or
// absolute path, a backslash, a ".." or hidden part, a path outside
// output/. stageRel is the stage's workspace-relative folder, which the
// model may have put in front.
func Normalize(stageRel, p string) (string, error) {
	raw := p
	p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), "`\"'"))
	switch {
	case p == "":
		return "", fmt.Errorf("the path is empty: name a file inside output/")
	case strings.ContainsAny(p, "\\\x00") || strings.ContainsRune(p, ':'):
		return "", fmt.Errorf("%q is not a plain relative path: use forward slashes and no drive or scheme", raw)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~"):
		return "", fmt.Errorf("%q is an absolute path: name a file inside output/", raw)
	}
	p = strings.TrimPrefix(p, "./")
	if stageRel != "" && strings.HasPrefix(p, stageRel+"/") {
		p = strings.TrimPrefix(p, stageRel+"/")
	}
	for _, part := range strings.Split(p, "/") {
		switch {
		case part == "..":
			return "", fmt.Errorf("%q climbs out with ..: name a file inside output/", raw)
		case part == "" || part == ".":
			return "", fmt.Errorf("%q has an empty part: name a file inside output/", raw)
		case strings.HasPrefix(part, "."):
			return "", fmt.Errorf("%q names a hidden file or folder, which icm does not write", raw)
		}
	}
	if !strings.HasPrefix(p, "output/") {
		p = "output/" + p
	}
	return path.Clean(p), nil
}

// Set is the declared outputs of one stage and the files written for
// them so far.
type Set struct {
	stageRel string
	targets  []Target
	maxSize  int
	files    map[string][]byte
	order    []string
}

// NewSet prepares the writes of one run of a stage (stageRel is its
// workspace-relative folder); maxSize caps one file's bytes (0: no cap).
func NewSet(stageRel string, c *contract.Contract, maxSize int) *Set {
	return &Set{stageRel: stageRel, targets: Targets(c), maxSize: maxSize, files: map[string][]byte{}}
}

// Accept checks a path and keeps content for it, replacing an earlier
// write of the same path. It returns the path relative to the stage
// folder, or an error that says what the model may write instead.
func (s *Set) Accept(p, content string) (string, error) {
	rel, err := Normalize(s.stageRel, p)
	if err != nil {
		return "", err
	}
	if !s.fits(rel) {
		return "", fmt.Errorf("%s fits none of this stage's outputs; write %s", rel, s.describeAll())
	}
	if s.maxSize > 0 && len(content) > s.maxSize {
		return "", fmt.Errorf("%s is %d bytes, over the %d-byte limit of one output", rel, len(content), s.maxSize)
	}
	if _, seen := s.files[rel]; !seen {
		if len(s.files) >= MaxFiles {
			return "", fmt.Errorf("this run has written %d files already, the most one run may write", MaxFiles)
		}
		s.order = append(s.order, rel)
	}
	s.files[rel] = []byte(content)
	return rel, nil
}

func (s *Set) fits(rel string) bool {
	for _, t := range s.targets {
		if t.Fits(rel) {
			return true
		}
	}
	return false
}

func (s *Set) describeAll() string {
	d := make([]string, len(s.targets))
	for i, t := range s.targets {
		d[i] = t.Describe()
	}
	return strings.Join(d, "; or ")
}

// Files returns the accepted files by path relative to the stage folder.
func (s *Set) Files() map[string][]byte { return s.files }

// Len is the number of files accepted so far.
func (s *Set) Len() int { return len(s.files) }

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
	if m := s.Missing(); len(m) > 0 {
		d := make([]string, len(m))
		for i, t := range m {
			d[i] = t.Describe()
		}
		return msg + " Still to write: " + strings.Join(d, "; ") + "."
	}
	return msg + " Every declared output has a file now; write more only if the task asks for them, then give a one-line summary as your final answer."
}
