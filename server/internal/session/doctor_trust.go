package session

import (
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/trust"
)

// trustLine is the diagnosis's trust line and whether the workspace's
// commands and servers may be started and contacted (the session's trust
// gate). Untrusted, the line fails: no stage runs until the person trusts
// what the workspace names.
func (dr Doctor) trustLine() (DiagLine, bool) {
	s := dr.s
	d := s.Trust().Decision()
	l := DiagLine{ID: "trust", Title: "trust", Status: DiagOK}
	switch d.State {
	case trust.NotNeeded:
		l.Text = "needs no trust: it names nothing to run, contact or read"
	case trust.Trusted:
		l.Text = "trusted: " + d.Parts.Count()
	case trust.Restricted:
		l.Status, l.Text = DiagFail, "not trusted: the editor is in Restricted Mode; it names "+d.Parts.Count()
	case trust.Changed:
		l.Status, l.Text = DiagFail, "not trusted: it changed since it was trusted"
	default:
		l.Status, l.Text = DiagFail, "not trusted: it names "+d.Parts.Count()
	}
	if l.Status == DiagFail {
		l.Fix = &DiagFix{Command: "icm trust", Action: fault.Action{ID: fault.TrustWorkspace, File: s.ws.Root}}
	}
	return l, d.Allowed()
}
