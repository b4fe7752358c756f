package state

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/human"
)

// Running is the state shown for a stage a run is working on. It is never
// derived from disk (Derive knows nothing of runs in progress); the faces
// that know a run is going pass it to FaceOf.
const Running Status = "running"

// Tones say how a state should strike a reader; faces map them to colours
// and message severities.
const (
	ToneOK      = "ok"
	ToneInfo    = "info"
	ToneWarning = "warning"
	ToneError   = "error"
)

// Face is how a stage's state reads, the same in every face of icm: `icm
// status`, the code lenses, the Pipeline view, the status bar and the
// notices all render the one Face that FaceOf derives, so they cannot
// disagree in words or icons.
type Face struct {
	// Status is the derived state (or Running).
	Status Status `json:"status"`
	// Label is the state in words: "awaiting review", "has errors".
	Label string `json:"label"`
	// Detail says more when there is more to say: the reason, a re-run
	// that failed, tools that all failed, Verify problems.
	Detail string `json:"detail,omitempty"`
	// Icon is a codicon id; Color a theme colour id ("" for the default).
	Icon  string `json:"icon"`
	Color string `json:"color,omitempty"`
	// Tone is ToneOK, ToneInfo, ToneWarning or ToneError.
	Tone string `json:"tone"`
}

// Text is the label and the detail on one line: "approved · last re-run
// failed: no model server at http://127.0.0.1:11434".
func (f Face) Text() string {
	if f.Detail == "" {
		return f.Label
	}
	return f.Label + " · " + f.Detail
}

type look struct {
	label, icon, color, tone string
}

// looks is the one vocabulary of states. Errors are red; a state that
// wants a person (review, stale) is yellow or orange.
var looks = map[Status]look{
	Pending:  {"pending", "circle-large-outline", "", ToneInfo},
	Running:  {"running", "sync~spin", "", ToneInfo},
	Awaiting: {"awaiting review", "eye", "charts.yellow", ToneInfo},
	Approved: {"approved", "pass-filled", "testing.iconPassed", ToneOK},
	Stale:    {"stale", "history", "charts.orange", ToneWarning},
	Failed:   {"failed", "error", "testing.iconFailed", ToneError},
	// Cannot run, which is not a failure: a slashed circle, not the cross.
	Invalid:     {"has errors", "circle-slash", "errorForeground", ToneError},
	ConfigError: {"config error", "settings-gear", "errorForeground", ToneError},
}

// Label is the words for a status; an unknown one reads as itself.
func Label(s Status) string {
	if l, ok := looks[s]; ok {
		return l.label
	}
	return strings.ReplaceAll(string(s), "-", " ")
}

// FaceOf derives how a stage's state reads. running marks the stage a run
// is working on now; reason, when not empty, replaces the state's own
// reason (the running stage's "[2/4] items done").
func FaceOf(s *StageState, running bool, reason string) Face {
	st := s.Status
	if running {
		st = Running
	}
	l, ok := looks[st]
	if !ok {
		l = look{Label(st), "question", "", ToneInfo}
	}
	f := Face{Status: st, Label: l.label, Icon: l.icon, Color: l.color, Tone: l.tone}
	if st == Approved && s.Approval.ByAgent() {
		// An agent's approval is shown apart from a person's: the open
		// check mark, and not the tone of a person's yes.
		f.Icon, f.Tone = "pass", ToneInfo
	}
	if reason == "" && !running {
		reason = s.Reason
	}
	var parts []string
	// The face is the stage's own: the "stage NAME: " the engine puts
	// before an error it records says nothing more there.
	own := "stage " + s.Stage + ": "
	if r := strings.Replace(strings.TrimSpace(reason), ": "+own, ": ", 1); r != "" && !redundant(r, l.label) {
		parts = append(parts, r)
	}
	if !running {
		if s.VerifyFailed && (st == Awaiting || st == Approved) && !strings.Contains(reason, "Verify") {
			parts = append(parts, "Verify found problems")
		}
		if s.RubricFailed && (st == Awaiting || st == Approved) {
			parts = append(parts, s.Rubric)
		}
		if s.RanWith != "" && (st == Awaiting || st == Approved) {
			// A one-off override: the state is the configured settings',
			// the model that wrote the output is worth telling.
			parts = append(parts, fmt.Sprintf("ran with %s (configured: %s)", s.RanWith, orNone(s.Configured)))
		}
		if s.Record != nil && (st == Awaiting || st == Approved) {
			parts = append(parts, writesParts(s.Record.Writes, st == Awaiting)...)
		}
		if s.WrittenBy != "" && (st == Awaiting || st == Approved) {
			parts = append(parts, "written by "+s.WrittenBy+" over MCP")
		}
		if s.ToolsFailed {
			n := 0
			if s.Record != nil {
				n = s.Record.ToolCalls
			}
			parts = append(parts, human.Failed(n, n, "tool call"))
			if f.Tone == ToneOK || f.Tone == ToneInfo {
				f.Tone = ToneWarning
			}
		}
		if s.Errors != "" {
			e := s.Errors
			if !strings.HasPrefix(e, "its contract") {
				e = "its contract has errors: " + strings.TrimPrefix(e, "cannot run: ")
			}
			parts = append(parts, e)
			if f.Tone == ToneOK || f.Tone == ToneInfo {
				f.Tone = ToneWarning
			}
		}
		switch s.Kept {
		case Approved:
			parts = append(parts, "its approval is kept")
		case Awaiting:
			parts = append(parts, "its output is kept for review")
		}
		if lf := s.LastFailure; lf != nil {
			parts = append(parts, "last re-run "+lf.Status+": "+oneLine(strings.TrimPrefix(strings.TrimSpace(lf.Error), own)))
			if f.Tone == ToneOK || f.Tone == ToneInfo {
				f.Tone = ToneWarning
			}
		}
	}
	f.Detail = strings.Join(parts, " · ")
	return f
}

// redundant reports whether a reason only repeats the state's label.
func redundant(reason, label string) bool {
	switch strings.ToLower(reason) {
	case label, "approved", "output approved", "output awaiting review":
		return true
	}
	return false
}

// oneLine keeps the first line of an error, cut to a length that fits a
// lens or a tree row's tooltip title.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const max = 200
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

// writesParts say what a run that names its files left for the person
// once its stage is approved: the declared outputs it did not write.
// While the stage awaits review its gate summary says that and more
// (report.Gate), beside the face.
func writesParts(w *Writes, awaiting bool) []string {
	if line := w.MissingLine(); line != "" && !awaiting {
		return []string{line}
	}
	return nil
}
