package assemble

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/markdown"
)

// Effective returns the scope icm applies to src. Quoted headings apply
// as written. An unquoted scope ("Avatar + Current Pain", "Tone section")
// applies as headings when the file has every heading it names, and
// otherwise loads the whole file (nil is returned, as for no scope).
func Effective(src []byte, s *contract.Scope) *contract.Scope {
	if s == nil || s.PathOnly {
		return nil
	}
	if !s.FreeText {
		return s
	}
	var doc *markdown.Doc
	for _, names := range s.Candidates() {
		if doc == nil {
			doc = markdown.Parse(src)
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
