package workflow

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// ProposedDir, in a stage's state folder, keeps the changes its last run
// proposes to files outside output/, each under the target's
// workspace-relative path, until a person approves them.
const ProposedDir = "proposed"

// proposal is a change to a file outside output/, as a run holds it
// until commit keeps it.
type proposal struct {
	target, named string
	data          []byte
}

// take turns what the model wrote into the run's outputs (by
// workspace-relative path, each ending in a newline), its proposals and
// the record of what it wrote against what the contract declares.
func (r *run) take(set *writeout.Set) (map[string][]byte, error) {
	out := map[string][]byte{}
	var rels []string
	proposed := map[string]proposal{}
	for _, rel := range set.Order() {
		data := withNewline(set.Files()[rel])
		if set.External(rel) {
			target, err := proposalTarget(r.e.ws, r.st, rel)
			if err != nil {
				return nil, fmt.Errorf("stage %s: %w", r.st.Name, err)
			}
			// Two names of one file: the one named last keeps its change.
			proposed[target] = proposal{target: target, named: rel, data: data}
			continue
		}
		ws := path.Join(r.st.Rel, rel)
		out[ws] = data
		rels = append(rels, ws)
	}
	sort.Strings(rels)
	r.proposed = nil
	for _, p := range proposed {
		r.proposed = append(r.proposed, p)
	}
	sort.Slice(r.proposed, func(i, j int) bool { return r.proposed[i].target < r.proposed[j].target })
	w := &state.Writes{Declared: len(writeout.Targets(r.c))}
	for _, t := range set.Missing() {
		w.Missing = append(w.Missing, t.Path)
	}
	// What no model writes (a PDF, a database) is the person's to make:
	// missing until they do.
	for _, u := range writeout.Unwritable(r.c) {
		w.Declared++
		if !r.made(u) {
			w.Missing = append(w.Missing, u)
		}
	}
	for _, rel := range set.Undeclared() {
		w.Undeclared = append(w.Undeclared, path.Join(r.st.Rel, rel))
	}
	r.writes = w
	if len(rels) > 0 {
		r.written = &Written{RunID: r.e.runID, Output: rels[0], Files: rels}
	}
	return out, nil
}

// proposalTarget is the workspace file a path outside output/ names
// (rel is relative to the stage folder, as the contract writes it): where
// it exists, looked for as an input is (the stage folder, the workspace
// root, the stages folder), or else the first of those whose folder
// exists. It must stay inside the workspace and out of icm's own folders.
func proposalTarget(ws *workspace.Workspace, st *workspace.Stage, rel string) (string, error) {
	found, tried, err := ws.FindInput(st.Dir, rel)
	if err != nil {
		return "", fmt.Errorf("%s cannot be written: %w", rel, err)
	}
	if !found.Exists {
		for _, f := range tried {
			if info, err := ws.Disk.Stat(filepath.Dir(f.Abs)); err == nil && info.IsDir() {
				found = f
				break
			}
		}
	}
	if found.Shared {
		return "", fmt.Errorf("%s lies outside the workspace: icm writes only inside it", rel)
	}
	target := ws.Rel(found.Abs)
	if target == "" || target == "." || filepath.IsAbs(target) || strings.HasPrefix(target, "../") {
		return "", fmt.Errorf("%s lies outside the workspace: icm writes only inside it", rel)
	}
	for _, part := range strings.Split(target, "/") {
		if part == state.StateDir || part == ".git" {
			return "", fmt.Errorf("%s is in icm's or git's own folder, which a stage never writes", rel)
		}
	}
	if first, _, _ := strings.Cut(target, "/"); first == workspace.HistoryDir {
		return "", fmt.Errorf("%s is in history/, which holds icm's records", rel)
	}
	if info, err := ws.Disk.Stat(found.Abs); err == nil && info.IsDir() {
		return "", fmt.Errorf("%s is a folder: name a file", rel)
	}
	return target, nil
}

// keptPath is where a stage keeps a proposed change to target.
func keptPath(st *workspace.Stage, target string) string {
	return filepath.Join(st.Dir, state.StateDir, ProposedDir, filepath.FromSlash(target))
}

// keepProposals replaces the stage's kept proposals with this run's and
// returns them as the record holds them: the target's hash now is the
// base an approval applies the change onto.
func (r *run) keepProposals() ([]state.Proposal, error) {
	ws, st := r.e.ws, r.st
	if err := ws.Disk.RemoveAll(filepath.Join(st.Dir, state.StateDir, ProposedDir)); err != nil {
		return nil, fmt.Errorf("unable to clear the changes the last run proposed: %w", err)
	}
	var out []state.Proposal
	for _, p := range r.proposed {
		base, err := state.HashFile(ws.Disk, p.target)
		if err != nil {
			return nil, err
		}
		kept := keptPath(st, p.target)
		if err := ws.Disk.WriteFile(kept, p.data, 0o644); err != nil {
			return nil, fmt.Errorf("unable to keep the change proposed to %s: %w", p.target, err)
		}
		out = append(out, state.Proposal{Target: p.target, Named: p.named, Base: base, Hash: state.Hash(p.data), Kept: ws.Rel(kept)})
	}
	return out, nil
}

// taken reports whether a file of output/ (relative to the stage folder)
// may not be replaced by a file the model names when the contract names
// none: it is there, and neither a run of icm wrote it nor the person
// chose to regenerate it.
func (r *run) taken(rel string) bool {
	ws := path.Join(r.st.Rel, rel)
	if _, err := r.e.ws.Disk.Stat(r.e.ws.Abs(ws)); err != nil {
		return false
	}
	if r.prev != nil {
		if _, ours := r.prev.Outputs[ws]; ours {
			return false
		}
	}
	return r.cur == nil || !r.cur.Regenerating
}

// keepPartial takes into set the files the last run wrote when it wrote
// only part of the declared outputs and they are as it left them: a run
// for the rest keeps them unless the model writes them again. It returns
// their names, relative to the stage folder.
func (r *run) keepPartial(set *writeout.Set) []string {
	prev := r.prev
	if prev == nil || prev.Status != state.RunDone || !prev.Writes.Partial() {
		return nil
	}
	var kept []string
	for ws, h := range prev.Outputs {
		if h == state.Missing {
			continue
		}
		data, err := r.e.ws.Disk.ReadFile(r.e.ws.Abs(ws))
		if err != nil || state.Hash(data) != h {
			continue
		}
		rel := strings.TrimPrefix(ws, r.st.Rel+"/")
		set.Keep(rel, data)
		kept = append(kept, rel)
	}
	sort.Strings(kept)
	return kept
}

// withNewline is a written file as icm saves it: ending in a newline.
func withNewline(data []byte) []byte {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return append(data[:len(data):len(data)], '\n')
	}
	return data
}

// made reports whether a declared output (as the contract names it, from
// the stage folder) is there.
func (r *run) made(named string) bool {
	if strings.HasPrefix(named, workspace.OutputDir+"/") {
		h, err := state.HashFile(r.e.ws.Disk, path.Join(r.st.Rel, named))
		return err == nil && h != state.Missing
	}
	found, _, err := r.e.ws.FindInput(r.st.Dir, named)
	return err == nil && found.Exists
}
