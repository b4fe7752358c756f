package workflow

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/textdiff"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// applyProposals applies the changes the stage's last run proposes to
// files outside output/, as the person approves them: each onto the file
// as the run saw it, atomically, through the workspace's Root. A file
// changed since the run refuses the whole approval with a fresh diff,
// before anything is written; a change already applied is left as it is.
// It returns the targets it wrote.
func applyProposals(ws *workspace.Workspace, st *workspace.Stage, s *state.StageState) ([]string, error) {
	if s.Record == nil || s.Record.Writes == nil {
		return nil, nil
	}
	type change struct {
		target string
		data   []byte
	}
	var todo []change
	for _, p := range s.Record.Writes.Proposals {
		now, err := state.HashFile(ws.Disk, p.Target)
		if err != nil {
			return nil, err
		}
		if now == p.Hash {
			continue // applied already
		}
		data, err := ws.Disk.ReadFile(ws.Abs(p.Kept))
		if err != nil || state.Hash(data) != p.Hash {
			return nil, fault.RunFailed(st.Name, fmt.Sprintf("the change its run proposes to %s is no longer kept as the run left it; run the stage again", p.Target))
		}
		if now != p.Base {
			return nil, changedSince(ws, st, p, data)
		}
		todo = append(todo, change{p.Target, data})
	}
	var applied []string
	for _, c := range todo {
		if err := ws.Disk.WriteFile(c.target, c.data, 0o644); err != nil {
			return applied, fmt.Errorf("unable to apply the change proposed to %s: %w", c.target, err)
		}
		applied = append(applied, c.target)
	}
	return applied, nil
}

// changedSince is the refusal of a proposal whose target changed since
// the run, with the difference from the file as it is now to the change.
func changedSince(ws *workspace.Workspace, st *workspace.Stage, p state.Proposal, proposed []byte) error {
	// A file removed since the run is compared as empty.
	cur, _ := ws.Disk.ReadFile(ws.Abs(p.Target))
	var b strings.Builder
	if _, err := textdiff.Unified(&b, string(cur), string(proposed), p.Target+" (now)", p.Target+" (proposed)", 3); err != nil {
		return err
	}
	return fault.ChangedSinceRun(st.Name, p.Target, ws.Abs(p.Target), b.String())
}
