package workflow_test

import (
	"os"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func stageState(t testing.TB, ws *workspace.Workspace, name string) *state.StageState {
	t.Helper()
	st, err := ws.Stage(name)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(st.Contract)
	if err != nil {
		t.Fatal(err)
	}
	c := contract.Parse(st.Contract, src)
	s, err := state.Derive(ws, st, c, state.ResolveSettings(ws.Config.Model, c.Model, ""))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openWS(tb testing.TB, dir string) *workspace.Workspace {
	tb.Helper()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return ws
}

func mustStage(t testing.TB, h *harness, name string) *workspace.Stage {
	t.Helper()
	st, err := h.ws().Stage(name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
