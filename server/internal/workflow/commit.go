package workflow

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// commit writes a stage's outputs and its record. The order makes a kill
// at any moment safe: the record first says "writing" (with the hashes
// before and after), then each output is replaced atomically, then the
// record says "done". The previous outputs are copied to history first.
func (r *run) commit(ctx context.Context, outputs map[string][]byte, cur *state.StageState) error {
	e, st := r.e, r.st
	var before map[string]string
	if cur != nil {
		before = cur.Outputs
	}
	if r.c.Script == nil {
		if err := e.keepVersions(st, cur); err != nil {
			return err
		}
		after := map[string]string{}
		for rel, data := range outputs {
			after[rel] = state.Hash(data)
		}
		rec := r.record(state.RunWriting, after, before)
		if err := state.WriteRecord(e.ws.Disk, st.Dir, rec); err != nil {
			return err
		}
		rels := make([]string, 0, len(outputs))
		for rel := range outputs {
			rels = append(rels, rel)
		}
		sort.Strings(rels)
		r.touched = true
		for _, rel := range rels {
			if err := e.ws.Disk.WriteFile(rel, outputs[rel], 0o644); err != nil {
				return err
			}
		}
		if w := r.written; w != nil {
			for _, f := range w.Files {
				if f != w.Output {
					if err := e.ws.Disk.WriteFile(ModelVersionPath(e.ws, st, f), outputs[f], 0o644); err != nil {
						return fmt.Errorf("unable to keep the model's version of %s: %w", f, err)
					}
				}
			}
			if err := keepWritten(e.ws, st, w, outputs[w.Output]); err != nil {
				return err
			}
		}
		if r.writes != nil {
			props, err := r.keepProposals()
			if err != nil {
				return err
			}
			r.writes.Proposals = props
		}
		if err := r.dropUnwritten(outputs, before); err != nil {
			return err
		}
	}
	now, err := state.OutputHashes(e.ws, st, r.c)
	if err != nil {
		return err
	}
	var outs []verify.Output
	for rel, h := range now {
		if h == state.Missing {
			if r.writes.Partial() && slices.Contains(r.writes.Missing, strings.TrimPrefix(rel, st.Rel+"/")) {
				continue // a partial answer: the record names it missing
			}
			return fault.Failed(fmt.Sprintf("stage %s did not write its declared output %s", st.Name, rel),
				"run the stage again; if it writes the output elsewhere, fix the path in its ## Outputs", nil).In(st.Name)
		}
		r.res.Outputs = append(r.res.Outputs, rel)
		outs = append(outs, verify.Output{Rel: rel, Abs: e.ws.Abs(rel)})
	}
	sort.Strings(r.res.Outputs)
	sort.Slice(outs, func(i, j int) bool { return outs[i].Rel < outs[j].Rel })
	if len(r.c.Verify) > 0 {
		r.res.Verify = verify.Run(ctx, r.c.Verify, outs, verifyEnv(e.ws, st, e.opts.CodeBlocks, e.opts.Permit, r.prov))
		e.emit(report.Event{Kind: report.EventVerify, Stage: st.Name, Verify: r.res.Verify, Message: verifySummary(r.res.Verify)})
	}
	r.rubric(r.res.Outputs)
	rec := r.record(state.RunDone, now, before)
	rec.Verify, rec.Rubric = r.res.Verify, r.res.Rubric
	rec.Writes = r.writes
	if r.prov != nil {
		rec.Sources = r.prov.Record()
	}
	if err := state.WriteRecord(e.ws.Disk, st.Dir, rec); err != nil {
		return err
	}
	if err := r.writeResults(rec.RunID, nil, ""); err != nil {
		return err
	}
	if r.evidence(ctx) {
		// The record keeps the line, so every face's gate says it.
		rec.Evidence, rec.EvidenceClean = r.res.Evidence, r.evidenceClean
		if err := state.WriteRecord(e.ws.Disk, st.Dir, rec); err != nil {
			return err
		}
	}
	r.res.Status = state.RunDone
	if cur != nil && cur.Regenerating {
		if err := state.ClearRegenerate(e.ws.Disk, st.Dir); err != nil {
			return err
		}
	}
	if r.c.Gate != nil && r.c.Gate.Auto && !rec.VerifyFailed() && !rec.RubricFailed() && e.opts.Submission == nil {
		if err := state.WriteApproval(e.ws.Disk, st.Dir, &state.Approval{Stage: st.Name, ApprovedAt: e.opts.Now(), RunID: e.runID, Outputs: now, By: "auto"}); err != nil {
			return err
		}
		r.res.AutoApproved = true
	}
	_ = e.ws.Disk.RemoveAll(filepath.Join(st.Dir, state.StateDir, state.ItemsDir))
	r.gate(rec)
	e.emit(report.Event{Kind: report.EventStageEnd, Stage: st.Name, Status: state.RunDone, Outputs: r.res.Outputs, Verify: r.res.Verify, Rubric: r.res.Rubric, ReviewGate: r.res.ReviewGate,
		Duration: r.res.Duration, PromptTokens: r.res.Prompt, OutputTokens: r.res.Output,
		Message: r.endMessage(), SameOutput: r.wroteSame(rec), Gate: r.res.Gate})
	return nil
}

// wroteSame reports whether rec, the record of a good run, says the run
// wrote what the stage's last good run (r.prev) had written.
func (r *run) wroteSame(rec *state.Record) bool {
	return r.prev != nil && r.prev.Status == state.RunDone && maps.Equal(r.prev.Outputs, rec.Outputs)
}

func (r *run) record(status string, outputs, before map[string]string) *state.Record {
	rec := &state.Record{
		Stage: r.st.Name, RunID: r.e.runID, Started: r.e.opts.Now().Add(-r.res.Duration), Finished: r.e.opts.Now(),
		Status: status, Inputs: r.inputs, Reads: r.readHashes(),
		Outputs: outputs, PrevOutputs: before, Items: r.res.Items, StopReason: r.res.StopReason,
		PromptTokens: r.res.Prompt, OutputTokens: r.res.Output, ModelCalls: r.res.ModelCalls, ToolCalls: r.res.ToolCalls,
		ToolErrors: r.res.ToolErrors, ToolFailures: r.res.ToolFailures, Warnings: r.warnings,
	}
	r.settle(rec)
	return rec
}

// readHashes are the files the model read, for a record (nil for none).
func (r *run) readHashes() state.Hashes {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reads) == 0 {
		return nil
	}
	out := state.Hashes{}
	for k, v := range r.reads {
		out[k] = v
	}
	return out
}

// settle records the settings of the run: the hash of the configured
// ones (what staleness compares), the model the calls used, and, when
// that was a one-off override, the configured model it stood in for.
func (r *run) settle(rec *state.Record) {
	rec.Settings, rec.Model = r.configured.Hash(), r.settings.Model()
	if sub := r.e.opts.Submission; sub != nil {
		// No model of icm's wrote it: the agent did, from this context.
		rec.Model, rec.Agent, rec.Configured = state.AgentPrefix+sub.Agent, sub.Agent, r.configured.Model()
		if acc := r.e.submitted; acc != nil {
			rec.ContextID = acc.ctx.ID()
		}
		return
	}
	if o := r.e.opts.Override; o != "" && o != r.configured.Model() {
		rec.Override, rec.Configured = true, r.configured.Model()
	}
}

// settingsOf returns the settings a stage's calls use and the
// configured ones they are made under: they differ only by a one-off
// Options.Override.
func (e *Engine) settingsOf(c *contract.Contract) (run, configured state.Settings) {
	configured = state.ResolveSettings(e.ws.Config.Model, c.Model, e.opts.Model)
	return configured.Override(e.opts.Override), configured
}

// endMessage sums up a finished stage in one line: what it wrote, and
// the tool calls that failed ("2 of 5 tool calls failed").
func (r *run) endMessage() string {
	msg := fmt.Sprintf("wrote %d output%s", len(r.res.Outputs), pluralS(len(r.res.Outputs)))
	if w := r.writes; w != nil {
		if line := w.MissingLine(); line != "" {
			msg += "; " + line
		}
		if n := len(w.Proposals); n > 0 {
			msg += fmt.Sprintf("; proposes %d change%s outside output/, applied when approved", n, pluralS(n))
		}
	}
	return msg + toolSuffix(r.res)
}

// gate is the summary the stage's gate shows, made once from the record
// the run wrote and the outputs as they are now (the headings later
// stages read that they lack).
func (r *run) gate(rec *state.Record) {
	var lacked []state.LackedHeading
	if r.rep != nil {
		lacked = r.rep.HeadingsLacked(r.st.Name)
	}
	r.res.Gate = report.GateOf(r.st.Name, rec, lacked)
}

// dropUnwritten removes the files of the stage's previous outputs that
// this run, which names its files, did not write again (they are kept in
// history/versions/). Of a contract that names none, only the files a
// run of icm wrote go, unless the person chose to regenerate them.
func (r *run) dropUnwritten(outputs map[string][]byte, before map[string]string) error {
	if r.set == nil {
		return nil
	}
	for rel, h := range before {
		if _, again := outputs[rel]; again || h == state.Missing {
			continue
		}
		if r.set.Open() && !r.wroteBefore(rel) && (r.cur == nil || !r.cur.Regenerating) {
			continue
		}
		if err := r.e.ws.Disk.Remove(rel); err != nil {
			return fmt.Errorf("unable to remove %s, which this run did not write again: %w", rel, err)
		}
	}
	return nil
}

// wroteBefore reports whether the stage's previous run wrote rel.
func (r *run) wroteBefore(rel string) bool {
	if r.prev == nil {
		return false
	}
	_, ok := r.prev.Outputs[rel]
	return ok
}

// toolSuffix says how many tool calls failed, when any did.
func toolSuffix(res *report.StageResult) string {
	switch n, of := res.ToolErrors, res.ToolCalls; {
	case n > 0 && n == of:
		return "; " + human.Failed(n, of, "tool call") + ": the output rests on nothing the tools returned"
	case n > 0:
		return "; " + human.Failed(n, of, "tool call")
	}
	return ""
}

func verifySummary(rs []state.VerifyResult) string {
	failed := 0
	for _, v := range rs {
		if !v.OK {
			failed++
		}
	}
	if failed == 0 {
		return fmt.Sprintf("verify: %d check%s passed", len(rs), pluralS(len(rs)))
	}
	return "verify: " + human.Failed(failed, len(rs), "check")
}

// pluralS is the "s" a count's noun takes: the progress and the Runs view
// say "1 check", "2 checks", never "check(s)".
func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// committedLabel ends the name of a kept version that was committed with
// the workspace, not made by icm.
const committedLabel = "committed"

// versionTime is the time format that starts a kept version's folder name,
// so the folders sort by time.
const versionTime = "20060102-150405.000"

// VersionsDir is where previous outputs are kept, per stage.
func VersionsDir(ws *workspace.Workspace, stage string) string {
	return filepath.Join(ws.Root, workspace.HistoryDir, "versions", stage)
}

// keepVersions copies the stage's current outputs into
// history/versions/<stage>/<label>/ before they are replaced; the label
// sorts by time and names the run that wrote them.
func (e *Engine) keepVersions(st *workspace.Stage, cur *state.StageState) error {
	if cur == nil {
		return nil
	}
	label := e.opts.Now().UTC().Format(versionTime)
	switch {
	case cur.Record != nil && cur.Record.RunID != "" && !cur.HumanEdited():
		label += "-" + cur.Record.RunID
	case cur.Record == nil && (cur.Committed || cur.Regenerating):
		label += "-" + committedLabel
	default:
		label += "-edited"
	}
	for rel, h := range cur.Outputs {
		if h == state.Missing {
			continue
		}
		dst := filepath.Join(VersionsDir(e.ws, st.Name), label, filepath.FromSlash(inOutput(st, rel)))
		if err := e.ws.Disk.CopyFile(rel, dst); err != nil {
			return fmt.Errorf("unable to keep the previous version of %s: %w", rel, err)
		}
	}
	return nil
}

// keepIncomplete saves a cut-off answer for a person to look at.
func (e *Engine) keepIncomplete(st *workspace.Stage, inc *IncompleteError) error {
	dst := filepath.Join(VersionsDir(e.ws, st.Name), e.opts.Now().UTC().Format(versionTime)+"-incomplete", "answer.md")
	return e.ws.Disk.WriteFile(dst, []byte(inc.Partial), 0o644)
}

// verifyEnv is what a stage's Verify checks read with, for a whole run,
// one item's re-run and an approval alike: the workspace through its Root
// (and its max_file_size), paths resolved from the stage's folder, and the
// provenance of the tool calls of the run that wrote the outputs.
func verifyEnv(ws *workspace.Workspace, st *workspace.Stage, code verify.CodeChecker, permit act.Permit, prov *verify.Provenance) verify.Env {
	return verify.Env{
		StageDir: st.Dir, Workspace: ws.Root, Stage: st.Name, Files: ws.Disk, Schemas: ws,
		Resolve:    func(p string) (string, error) { return ws.Resolve(st.Dir, p) },
		CodeBlocks: code, Provenance: prov, Permit: permit,
	}
}
