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
		for _, n := range names {
			if _, ok := doc.FindHeading(n); !ok {
				found = false
				break
			}
		}
		if found {
			eff := *s
			eff.FreeText, eff.Names, eff.Headings = false, nil, names
			eff.Through = s.Through && len(names) == 2
			return &eff
		}
	}
	return nil
}
