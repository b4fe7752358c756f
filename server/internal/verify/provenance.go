package verify

import (
	"regexp"
	"sort"

	"github.com/icm-tool/icm/server/internal/evidence/urls"
	"github.com/icm-tool/icm/server/internal/state"
)

// Provenance is where the URLs a run may cite came from: the tool calls of
// that run (what they returned, and what they were asked to read) and the
// stage's own inputs. The `sources` and `sources-from-tools` checks compare
// an output's URLs with it, so a model cannot cite pages nobody fetched.
type Provenance struct {
	// Tools is set when the stage offered tools to the model.
	Tools bool
	// FromTools holds the URLs tool calls that did not fail returned or
	// read, normalised (see NormalizeURL).
	FromTools map[string]bool
	// Given holds the URLs found in the stage's assembled context.
	Given map[string]bool
}

// NewProvenance makes an empty provenance for a stage that offers tools
// (tools) or not.
func NewProvenance(tools bool) *Provenance {
	return &Provenance{Tools: tools, FromTools: map[string]bool{}, Given: map[string]bool{}}
}

// AddTool records the URLs in a tool call's arguments or result text.
func (p *Provenance) AddTool(text string) {
	for _, u := range URLs(text) {
		p.FromTools[NormalizeURL(u)] = true
	}
}

// AddGiven records the URLs in text the stage was given.
func (p *Provenance) AddGiven(text string) {
	for _, u := range URLs(text) {
		p.Given[NormalizeURL(u)] = true
	}
}

// Merge adds what another provenance holds (a For each item's).
func (p *Provenance) Merge(o *Provenance) {
	for u := range o.FromTools {
		p.FromTools[u] = true
	}
	for u := range o.Given {
		p.Given[u] = true
	}
}

// Record is the provenance as a run record keeps it.
func (p *Provenance) Record() *state.SourceURLs {
	return &state.SourceURLs{Tools: p.Tools, FromTools: sorted(p.FromTools), Given: sorted(p.Given)}
}

// ProvenanceOf reads a run record's provenance back; nil when it kept none.
func ProvenanceOf(s *state.SourceURLs) *Provenance {
	if s == nil {
		return nil
	}
	p := NewProvenance(s.Tools)
	for _, u := range s.FromTools {
		p.FromTools[u] = true
	}
	for _, u := range s.Given {
		p.Given[u] = true
	}
	return p
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for u := range set {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// URLs returns the http and https URLs in text, in order, with trailing
// punctuation that ends a sentence or a Markdown construct left off.
func URLs(text string) []string {
	var out []string
	for _, s := range urls.Find(text) {
		out = append(out, s.Raw)
	}
	return out
}

// NormalizeURL makes two spellings of one page compare equal (see
// urls.Normalize).
func NormalizeURL(raw string) string { return urls.Normalize(raw) }

// sourcesMarker starts a list of sources: "Sources:", "**Source**:", "- sources:".
var sourcesMarker = regexp.MustCompile(`(?im)^\s*[-*]?\s*\**sources?\**\s*:`)

// unsourced finds the URLs of an output that no tool call of the run
// returned or read. With onlyListed, it looks at the URLs of `Sources:`
// lists (up to the next heading) and accepts the ones the stage's inputs
// gave too; otherwise it looks at every URL and accepts only tools'.
func unsourced(o Output, data []byte, p *Provenance, onlyListed bool) []state.VerifyFinding {
	m := newLines(data)
	var fs []state.VerifyFinding
	seen := map[string]bool{}
	check := func(text string, base int) {
		for _, u := range urls.Find(text) {
			raw := u.Raw
			n := urls.Normalize(raw)
			if seen[n] || p.FromTools[n] || (onlyListed && p.Given[n]) {
				continue
			}
			seen[n] = true
			msg := raw + " was not returned or read by any tool call of this run: cite only pages a search returned or a fetch read"
			if !p.Tools {
				msg = raw + " cannot come from a tool call: this stage has no tools (use `sources`, or give the stage tools)"
			}
			fs = append(fs, state.VerifyFinding{File: o.Rel, Line: m.line(base + u.Start), Message: msg})
		}
	}
	if !onlyListed {
		check(string(data), 0)
		return fs
	}
	text := string(data)
	for _, loc := range sourcesMarker.FindAllStringIndex(text, -1) {
		end := len(text)
		if next := headingAfter.FindStringIndex(text[loc[1]:]); next != nil {
			end = loc[1] + next[0]
		}
		check(text[loc[1]:end], loc[1])
	}
	return fs
}

// headingAfter finds the next ATX heading line.
var headingAfter = regexp.MustCompile(`(?m)^#{1,6}\s`)
