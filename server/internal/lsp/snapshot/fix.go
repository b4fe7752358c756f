package snapshot

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
)

// Actions offers, for the findings of the snapshot that includes the
// buffer between start and end: in a contract, quick fixes (point a path
// at the nearest existing file, create a missing input) and the stage's
// commands (run, run all, approve, probe); in config.toml the fix a
// problem suggests (the model the server has, the key meant, the allowed
// value meant). nil for any other file.
func (f *File) Actions(ctx context.Context, start, end document.Position) (*Actions, error) {
	isConfig := f.Contract == nil && f.isConfig()
	if f.Contract == nil && !isConfig {
		return nil, nil
	}
	found, err := f.findingsIn(ctx, start, end)
	if err != nil {
		return nil, err
	}
	if isConfig {
		return &Actions{Fixes: configFixes(found)}, nil
	}
	out := &Actions{}
	for _, fd := range found {
		switch fd.Code {
		case contract.CodeInputMissing, contract.CodeForEachSource:
			if sug := fd.Data["suggest_relative"]; sug != "" {
				out.Fixes = append(out.Fixes, Fix{Title: fmt.Sprintf("Change the path to %s", sug), Finding: fd, Preferred: true,
					Edit: &Edit{Range: fd.Range, Text: sug}})
			}
			if rel := fd.Data["path"]; rel != "" {
				out.Fixes = append(out.Fixes, Fix{Title: fmt.Sprintf("Create %s", rel), Finding: fd, Create: rel})
			}
		case contract.CodeUnknownSection, contract.CodeBadVerify, contract.CodeBadModel:
			// A misspelt name: the finding lies on it, and names the one meant.
			if sug := fd.Data["suggest"]; sug != "" {
				out.Fixes = append(out.Fixes, Fix{Title: "Change it to " + sug, Finding: fd, Preferred: true,
					Edit: &Edit{Range: fd.Range, Text: sug}})
			}
		}
	}
	on := Target{Workspace: f.ws().Root, Stage: f.Stage.Name}
	out.Commands = []Offer{
		{Title: "Run stage " + f.Stage.Name, Verb: VerbRunStage, On: on},
		{Title: "Run all stages", Verb: VerbRunAll, On: on},
		{Title: "Approve stage " + f.Stage.Name, Verb: VerbApprove, On: on},
		{Title: "Probe stage " + f.Stage.Name + " (show the assembled context)", Verb: VerbProbe, On: on},
	}
	return out, nil
}

// findingsIn returns the findings of the latest snapshot in the file
// that lie between start and end: what a quick fix can act on.
func (f *File) findingsIn(ctx context.Context, start, end document.Position) ([]contract.Finding, error) {
	m := f.Doc.Mapper()
	from, err := offset(m, start)
	if err != nil {
		return nil, err
	}
	to, err := offset(m, end)
	if err != nil {
		return nil, err
	}
	snap, err := f.w.Snapshot(ctx)
	defer snap.Release()
	if err != nil {
		return nil, err
	}
	return snap.findingsAt(f.Doc.Path, from, to), nil
}

// configFixes are the fixes config.toml's problems suggest.
func configFixes(found []contract.Finding) []Fix {
	out := []Fix{}
	for _, fd := range found {
		sug := fd.Data["suggest"]
		if sug == "" {
			continue
		}
		text, title := `"`+sug+`"`, fmt.Sprintf("Use %q", sug)
		if fd.Code == config.ProblemUnknownKey {
			text, title = sug, fmt.Sprintf("Change the key to %s", sug)
		}
		out = append(out, Fix{Title: title, Finding: fd, Preferred: true, Edit: &Edit{Range: fd.Range, Text: text}})
	}
	return out
}
