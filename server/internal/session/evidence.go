package session

import (
	"context"

	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// evidenceCacheSize bounds the results a session keeps in memory: a few
// outputs per stage of a workspace being reviewed.
const evidenceCacheSize = 64

// Evidence is what each Markdown output of a stage rests on, as the
// output is on disk now (a person's edit included): worked out from the
// stage's inputs and what its last run's tools returned, cached by the
// output's and the sources' hashes. It informs; it decides nothing. A
// workspace its person has not trusted gets it too, and keeps no cache
// on disk.
func (rv Reviews) Evidence(ctx context.Context, stage string) ([]*evidence.Result, error) {
	s := rv.s
	res, err := workflow.Evidence(ctx, s.ws, stage, workflow.EvidenceOptions{Cache: s.evidence, ReadOnly: !s.trust.Allowed()})
	if err != nil {
		return nil, fault.From(err)
	}
	return res, nil
}
