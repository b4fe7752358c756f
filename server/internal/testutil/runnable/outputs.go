package runnable

import (
	"path"
	"regexp"
	"strings"
)

// A wanted output is one entry of the write tool's list, as the model
// reads it: "output/plan.md", "output/[slug]-brief.md (fill in [slug])"
// or "any file in output/site/".
type wanted struct {
	path string
	dir  bool
}

// The write tool's description ends with its outputs after this; its
// answer after a write names what is left after stillToWrite.
const (
	outputsLead  = "The outputs: "
	stillToWrite = "Still to write: "
	allWritten   = "Every declared output has a file now"
)

// listAfter reads the "; "-separated list that follows lead in text, up
// to the full stop that ends it. ok is false when text has no lead.
func listAfter(text, lead string) (items []wanted, ok bool) {
	i := strings.Index(text, lead)
	if i < 0 {
		return nil, false
	}
	rest := text[i+len(lead):]
	// The list ends at a full stop followed by a space or the end: paths
	// hold dots of their own ("output/a.md").
	if j := strings.Index(rest, ". "); j >= 0 {
		rest = rest[:j]
	}
	rest = strings.TrimSuffix(strings.TrimSpace(rest), ".")
	for _, it := range strings.Split(rest, "; ") {
		if w, good := readWanted(it); good {
			items = append(items, w)
		}
	}
	return items, true
}

// readWanted reads one entry of the list.
func readWanted(s string) (wanted, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "or "))
	if p, ok := strings.CutPrefix(s, "any file in "); ok {
		return wanted{path: strings.TrimSuffix(p, "/"), dir: true}, p != ""
	}
	// What follows the path in parentheses says more of it ("(fill in
	// [slug])", "(outside output/: ...)").
	if i := strings.Index(s, " ("); i >= 0 {
		s = s[:i]
	}
	return wanted{path: s}, s != ""
}

// placeholder and date tokens a path may hold, as the write tool's
// patterns read them.
var (
	placeholderRe = regexp.MustCompile(`\[[^\]/]+\]|\{\{[^}/]*\}\}|<[^>/]+>|\{[^{}/]+\}`)
	dateRe        = regexp.MustCompile(`YYYY-MM-DD|YYYYMMDD|YYYY-MM|YYYY`)
)

// fileFor is the path the model writes for a wanted output: each
// placeholder filled with a short name, each date token with a date, a
// folder given one file.
func fileFor(w wanted) string {
	p := placeholderRe.ReplaceAllString(w.path, "demo")
	p = dateRe.ReplaceAllStringFunc(p, func(m string) string {
		return map[string]string{"YYYY-MM-DD": "2026-12-01", "YYYYMMDD": "20261201", "YYYY-MM": "2026-12", "YYYY": "2026"}[m]
	})
	if w.dir {
		p += "/notes.md"
	}
	return p
}

// contentFor is what the model writes into a file: text of the kind its
// extension names, holding body (the headings later stages look for)
// where the format allows it.
func contentFor(p, body string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".json":
		return "{\"written\": \"for the measurement\"}\n"
	case ".jsonl", ".ndjson":
		return "{\"written\": \"for the measurement\"}\n"
	case ".tsv":
		return "name\tvalue\nwritten\t1\n"
	case ".yml", ".yaml":
		return "written: for the measurement\n"
	case ".html", ".htm":
		return "<!doctype html>\n<html><head><title>Written</title></head><body><p>Written for the measurement.</p></body></html>\n"
	case ".csv":
		return "name,value\nwritten,1\n"
	case ".toml":
		return "written = \"for the measurement\"\n"
	}
	return "# " + path.Base(p) + "\n\n" + body
}
