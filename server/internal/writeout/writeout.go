// Package writeout lets the model name the files a stage writes. A stage
// whose outputs hold placeholders (output/[slug]-brief.md), name folders
// (output/site/), are several files, lie outside its output/ folder or are
// not named at all cannot take the model's one answer as its output: the
// model writes each file through one tool, write_output(path, content),
// or, when it cannot call tools, answers in a strict plain format. Every
// path is checked before anything is kept: a file inside the stage's
// output/ folder must fit a declared output (its name, its pattern, or
// its folder), or, when the contract names none, be a new file within
// bounds; a file outside output/ must fit one the contract names there,
// and is kept as a change the person approves. Each file's kind is
// checked as it is written (a .json parses, a .csv has rows).
package writeout

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
)

// ToolName is the name of the write tool the model is offered.
const ToolName = "write_output"

// Needed reports whether a model stage writes through the write tool: it
// has no For each (each item's answer goes to its one file) and its
// outputs hold a placeholder, name a folder, are more than one file, lie
// outside output/, or are not named at all. A stage whose one output is a
// plain name keeps the answer as the output.
func Needed(c *contract.Contract) bool {
	if c == nil || c.Script != nil || c.ForEach != nil {
		return false
	}
	ts := Targets(c)
	if len(ts) != 1 || len(Unwritable(c)) > 0 {
		return true
	}
	return ts[0].Dir || ts[0].Pattern || ts[0].External
}

// Unwritable lists the declared outputs no model writes, as the contract
// names them: files whose kind cannot be text (a PDF, a database), which
// a person or a command makes. They are no target of the write tool.
func Unwritable(c *contract.Contract) []string {
	var out []string
	for _, list := range [][]contract.Output{c.Outputs, c.ExternalOutputs} {
		for _, o := range list {
			if !o.NonFile && o.Path != "" && !o.Dir && contract.NonText(o.Path) {
				out = append(out, path.Clean(o.Path))
			}
		}
	}
	return out
}

// Target is one declared output a written file may fit.
type Target struct {
	// Path is the declared output, relative to the stage folder
	// ("output/[slug]-brief.md", "output/site").
	Path string
	// Dir: any file below Path fits; Pattern: Path holds placeholders.
	Dir, Pattern bool
	// External: Path lies outside the stage's output/ folder ("_config/
	// endpoint-map.md", "../../pieces/[slug]/review.md"), as the contract
	// names it: a file written there is a change the person approves.
	External bool
	re       *regexp.Regexp
}

// Targets lists the declared file outputs of a contract a model may
// write: those in its output/ folder, then those it names outside it
// (not the Unwritable ones).
func Targets(c *contract.Contract) []Target {
	var out []Target
	for _, o := range c.Outputs {
		if o.NonFile || o.Path == "" || (!o.Dir && contract.NonText(o.Path)) {
			continue
		}
		out = append(out, target(o.Path, o.Dir, o.Templated, false))
	}
	for _, o := range c.ExternalOutputs {
		if o.NonFile || o.Path == "" || (!o.Dir && contract.NonText(o.Path)) {
			continue
		}
		p := path.Clean(o.Path)
		out = append(out, target(p, o.Dir || strings.HasSuffix(o.Path, "/"), o.Templated, true))
	}
	return out
}

func target(p string, dir, templated, external bool) Target {
	t := Target{Path: p, Dir: dir, Pattern: templated || hasDateToken(p), External: external}
	t.re = regexp.MustCompile("^" + patternRegexp(p) + map[bool]string{true: "/.+", false: ""}[dir] + "$")
	return t
}

// Describe is how a target reads in the tool's description and errors:
// "output/[slug]-brief.md (fill in [slug])", "any file in output/site/".
func (t Target) Describe() string {
	d := t.Path
	switch {
	case t.Dir:
		d = "any file in " + t.Path + "/"
	case t.Pattern:
		d = t.Path + " (fill in " + strings.Join(placeholdersOf(t.Path), ", ") + ")"
	}
	if t.External {
		d += " (outside output/: a change the person approves)"
	}
	return d
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
