package contract

import (
	"regexp"
	"strings"
)

// braceList matches a shell brace list in a path: "{grade,term}" names
// one file for each word ("grade_breakdown.json", "term_breakdown.json").
// A brace pair without a comma is a placeholder ("{slug}"), never a list.
var braceList = regexp.MustCompile(`\{([^{}\s,]*(?:,[^{}\s,]*)+)\}`)

// maxBraceFiles bounds how many paths one path's brace lists expand to.
const maxBraceFiles = 64

// expandBraces returns the paths a path's brace lists name, in the order
// written ("a/{x,y}-{1,2}.md" gives a/x-1.md, a/x-2.md, a/y-1.md,
// a/y-2.md), or nil when it holds none. Past maxBraceFiles the rest are
// left out.
func expandBraces(p string) []string {
	m := braceList.FindStringSubmatchIndex(p)
	if m == nil {
		return nil
	}
	var out []string
	for _, word := range strings.Split(p[m[2]:m[3]], ",") {
		one := p[:m[0]] + word + p[m[1]:]
		more := expandBraces(one)
		if more == nil {
			more = []string{one}
		}
		for _, q := range more {
			if len(out) == maxBraceFiles {
				return out
			}
			out = append(out, q)
		}
	}
	return out
}

// addInput adds an input to the contract: one for each file a brace list
// in its path names, each remembering the path as written.
func (p *parser) addInput(in Input) {
	paths := expandBraces(in.Path)
	if in.NonFile || paths == nil {
		p.c.Inputs = append(p.c.Inputs, in)
		return
	}
	for _, q := range paths {
		one := in
		one.Braces, one.Path = in.Path, q
		p.c.Inputs = append(p.c.Inputs, one)
	}
}
