package workflow

import (
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// NoteFailure records a run of a stage that failed before the engine
// started it (the model server was not there): as for a run that fails
// midway, a stage with a good run keeps it, its outputs and its approval,
// with the failure beside it ("approved · last re-run failed: ..."); a
// stage that never ran reads failed. It takes the run lock, so it never
// writes under a run in progress.
func NoteFailure(ws *workspace.Workspace, stage, runID string, failure error, now time.Time) error {
	st, err := ws.Stage(stage)
	if err != nil {
		return err
	}
	lock, err := state.Acquire(ws.Disk, "icm run")
	if err != nil {
		return err
	}
	defer lock.Release()
	rec, err := state.ReadRecord(ws.Disk, st.Dir)
	if err != nil {
		return err
	}
	att := &state.Attempt{RunID: runID, Status: state.RunFailed, Error: failure.Error(), Finished: now}
	switch {
	case rec != nil && rec.Status == state.RunDone:
		rec.LastFailure = att
	case rec != nil:
		// Not a good run to keep (failed, cut off, interrupted): the newer
		// failure replaces its words and times, the hashes stay.
		rec.Status, rec.Error, rec.RunID, rec.Started, rec.Finished = state.RunFailed, failure.Error(), runID, now, now
	default:
		rec = &state.Record{Stage: st.Name, RunID: runID, Started: now, Finished: now, Status: state.RunFailed, Error: failure.Error()}
	}
	if err := state.WriteRecord(ws.Disk, st.Dir, rec); err != nil {
		return fmt.Errorf("unable to record the failed run of %s: %w", st.Name, err)
	}
	return nil
}
