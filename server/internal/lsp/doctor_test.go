package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

// TestDoctorCommand: icm.doctor answers the session's diagnosis, each
// failing line with its fix as a button (an error action: id and title),
// never a command line in the words the editor shows.
func TestDoctorCommand(t *testing.T) {
	s := newSession(t, func(c *lsptest.Config) {
		// A model the scripted server does not have.
		c.InitOptions["model"] = "qwen3:4b"
	})
	raw, err := s.ExecuteCommand("icm.doctor", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Workspace string
		Lines     []struct {
			ID, Title, Status, Text string
			Fix                     *struct{ ID, Title, Model string }
		}
		Next   struct{ Stage, Action string }
		Failed int
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	byID := map[string]int{}
	for i, l := range d.Lines {
		byID[l.ID] = i
		if strings.Contains(l.Text, "icm ") || strings.Contains(l.Text, " --") {
			t.Errorf("line %s shows a command line to the editor: %q", l.ID, l.Text)
		}
		if l.Status == "fail" && (l.Fix == nil || l.Fix.ID == "" || l.Fix.Title == "") {
			t.Errorf("failing line %s has no button: %+v", l.ID, l)
		}
	}
	for _, id := range []string{"server", "model", "window", "trust", "check"} {
		if _, ok := byID[id]; !ok {
			t.Errorf("no %s line in %s", id, raw)
		}
	}
	m := d.Lines[byID["model"]]
	if m.Status != "fail" || m.Fix == nil || m.Fix.ID != "pull-model" || m.Fix.Title != "Pull qwen3:4b" {
		t.Errorf("model line = %+v", m)
	}
	if d.Lines[byID["server"]].Status != "ok" || d.Failed == 0 || d.Next.Stage != "01-scope" {
		t.Errorf("diagnosis = %s", raw)
	}
}
