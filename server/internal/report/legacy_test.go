package report

import (
	"encoding/json"
	"testing"
	"time"
)

// A trace written before schema 2 keys model and tool events by Go
// names; it reads the same as one written now.
func TestOldTraceKeysStillRead(t *testing.T) {
	old := `{"kind":"model","model":{"Call":2,"Model":"m","PromptTokens":435,"NumCtx":6144,"Duration":5,"Err":"boom","Reply":{"role":"assistant","content":"x"}},
		"tool":{"Call":1,"Name":"search","ResultSize":12,"IsError":true,"Err":"down","Args":{"Query":"q"}}}`
	var ev Event
	if err := json.Unmarshal([]byte(old), &ev); err != nil {
		t.Fatal(err)
	}
	m, tl := ev.Model, ev.Tool
	if m == nil || m.Call != 2 || m.Model != "m" || m.PromptTokens != 435 || m.NumCtx != 6144 || m.Duration != 5*time.Nanosecond || m.Err != "boom" || m.Reply == nil || m.Reply.Content != "x" {
		t.Errorf("old model event read as %+v", m)
	}
	if tl == nil || tl.Call != 1 || tl.ResultSize != 12 || !tl.IsError || tl.Err != "down" || tl.Args["Query"] != "q" {
		t.Errorf("old tool event read as %+v", tl)
	}
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var again Event
	if err := json.Unmarshal(data, &again); err != nil || again.Model.PromptTokens != 435 || again.Tool.ResultSize != 12 || again.Tool.Args["Query"] != "q" {
		t.Errorf("written and read again: %v %s", err, data)
	}
}
