package lsp

import (
	"context"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/session"
)

// Commands of running a workspace on this machine (docs/lsp-protocol.md).
const (
	cmdDoctor    = "icm.doctor"
	cmdSetupPlan = "icm.setupPlan"
	cmdSetupSave = "icm.setupSave"
)

// diagnosis is what icm.doctor answers: the session's diagnosis with each
// fix as the button the client shows (an error action's wire form).
type diagnosis struct {
	Workspace string     `json:"workspace"`
	Lines     []diagLine `json:"lines"`
	Next      any        `json:"next"`
	Failed    int        `json:"failed"`
}

type diagLine struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Status string      `json:"status"`
	Text   string      `json:"text"`
	Fix    *actionData `json:"fix,omitempty"`
}

// doctor runs icm.doctor: it diagnoses a workspace through its session,
// as icm doctor does.
func doctor(ctx context.Context, _ *env, w *snapshot.Workspace, _ commandArgs) (any, error) {
	o, err := w.Acquire()
	if err != nil {
		return nil, err
	}
	defer o.Release()
	d := o.Session().Doctor().Run(ctx)
	out := &diagnosis{Workspace: d.Workspace, Lines: []diagLine{}, Next: d.Next, Failed: d.Failed}
	for _, l := range d.Lines {
		out.Lines = append(out.Lines, diagLine{ID: l.ID, Title: l.Title, Status: l.Status, Text: l.Text, Fix: fixButton(l)})
	}
	return out, nil
}

// fixButton is a failing or warning line's fix as a button; nil for a
// line that needs none.
func fixButton(l session.DiagLine) *actionData {
	if l.Fix == nil || (l.Status != session.DiagFail && l.Status != session.DiagWarn) {
		return nil
	}
	a := l.Fix.Action
	return &actionData{ID: string(a.ID), Title: a.Title(), Stage: a.Stage, Location: locationOf(a.File, a.Line),
		Model: a.Model, URL: a.URL, Command: a.Command, Setting: settingOf[a.ID]}
}
