package assemble

import (
	"hash/fnv"
	"sync"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/markdown"
)

// Effective returns the scope icm applies to src. Quoted headings apply
// as written. An unquoted scope ("Avatar + Current Pain", "Tone section")
// applies as headings when the file has every heading it names, and
// otherwise loads the whole file (nil is returned, as for no scope).
func Effective(src []byte, s *contract.Scope) *contract.Scope {
	return (*Docs)(nil).Effective("", src, s)
}

// Effective is Effective with the file's parsed Markdown remembered under
// abs for the pass.
func (d *Docs) Effective(abs string, src []byte, s *contract.Scope) *contract.Scope {
	if s == nil || s.PathOnly {
		return nil
	}
	if !s.FreeText {
		return s
	}
	var doc *markdown.Doc
	for _, names := range s.Candidates() {
		if doc == nil {
			doc = d.Parse(abs, src)
		}
		found := true
		var headings []string
		for _, n := range names {
			i := findHeading(doc, n)
			if i < 0 {
				found = false
				break
			}
			if h := doc.Headings[i].Text; !containsString(headings, h) {
				headings = append(headings, h)
			}
		}
		if found {
			eff := *s
			eff.FreeText, eff.Names, eff.Headings = false, nil, headings
			eff.Through = s.Through && len(headings) == 2
			return &eff
		}
	}
	return nil
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// Docs remembers parsed Markdown for one pass, by file and content: a
// check reads each reference of a workspace through every stage that
// names it, and parses it once. It is safe for concurrent use; a nil Docs
// parses every time.
type Docs struct {
	mu sync.Mutex
	m  map[docKey]*markdown.Doc
}

type docKey struct {
	abs  string
	n    int
	hash uint64
}

// maxDocs bounds what one pass remembers.
const maxDocs = 512

// NewDocs returns an empty Docs.
func NewDocs() *Docs { return &Docs{m: map[docKey]*markdown.Doc{}} }

// Parse returns src parsed, remembered under abs and src's content.
func (d *Docs) Parse(abs string, src []byte) *markdown.Doc {
	if d == nil || abs == "" {
		return markdown.Parse(src)
	}
	h := fnv.New64a()
	h.Write(src)
	k := docKey{abs, len(src), h.Sum64()}
	d.mu.Lock()
	doc, ok := d.m[k]
	d.mu.Unlock()
	if ok {
		return doc
	}
	doc = markdown.Parse(src)
	d.mu.Lock()
	if len(d.m) >= maxDocs {
		clear(d.m)
	}
	d.m[k] = doc
	d.mu.Unlock()
	return doc
}
