package state

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Status is a stage's derived state.
type Status string

// Stage states.
const (
	Pending  Status = "pending"
	Awaiting Status = "awaiting-review"
	Approved Status = "approved"
	Stale    Status = "stale"
	Failed   Status = "failed"
	// Invalid: the contract has errors, so the stage cannot run.
	Invalid Status = "invalid"
	// ConfigError: a setting the stage runs with cannot be used (config.toml
	// cannot be read, or names a model the server lacks), so the stage
	// cannot run and whether its settings changed cannot be judged. The
	// state it would have otherwise is kept (Kept): an approval stands
	// until a valid setting really changes.
	ConfigError Status = "config-error"
)

// StageState is what icm knows about one stage right now.
type StageState struct {
	Stage  string `json:"stage"`
	Status Status `json:"status"`
	// Reason explains the status in one line.
	Reason string `json:"reason"`
	// Changed lists the files read by the last run that differ now.
	Changed []string `json:"changed,omitempty"`
	// Edited is set when an output differs from what the last run wrote.
	Edited bool `json:"edited,omitempty"`
	// Committed is set when outputs are there that no run of icm wrote
	// and nobody approved: committed with the workspace, a result to keep
	// (adopt) or regenerate, not a person's edit. Regenerating is set once
	// the person chose to regenerate them.
	Committed    bool `json:"committed,omitempty"`
	Regenerating bool `json:"regenerating,omitempty"`
	// Manual is set when the last run showed the stage as the person's
	// own step (a command, a deploy, an approval) without a model.
	Manual       bool `json:"manual,omitempty"`
	VerifyFailed bool `json:"verify_failed,omitempty"`
	// RubricFailed is set when a review rubric's check failed on the
	// outputs as the last run wrote them; Rubric sums the checks up
	// ("3 of 4 rubric checks pass: missing section "Risks"").
	RubricFailed bool   `json:"rubric_failed,omitempty"`
	Rubric       string `json:"rubric,omitempty"`
	// RanWith is the model the last run used when it was a one-off
	// override, and Configured the configured model it stood in for ("" when
	// the settings named none): the state is judged by the configured
	// settings, so the override is only told.
	RanWith    string `json:"ran_with,omitempty"`
	Configured string `json:"configured_model,omitempty"`
	// WrittenBy is AgentPrefix and the agent's name when the last run's
	// outputs were handed in by a coding agent over MCP.
	WrittenBy string `json:"written_by,omitempty"`
	// ToolsFailed is set when the last run called tools and every call
	// failed: the output was written from nothing the tools returned.
	ToolsFailed bool `json:"tools_failed,omitempty"`
	// LastFailure is the re-run that failed after the last good run; the
	// status and outputs are still the good run's.
	LastFailure *Attempt `json:"last_failure,omitempty"`
	// Kept is the state a stage in ConfigError keeps for when the setting
	// is fixed (approved, awaiting review ...); "" otherwise.
	Kept Status `json:"kept,omitempty"`
	// Errors says why a stage kept awaiting review cannot run ("its
	// contract has errors", "cannot run: input x.md does not exist"): its
	// output is still there to review, so it is not Invalid.
	Errors string `json:"errors,omitempty"`
	// Face is how the state reads (FaceOf, filled in by Pipeline).
	Face     *Face      `json:"face,omitempty"`
	Outputs  Hashes     `json:"outputs"`
	LastRun  *time.Time `json:"last_run,omitempty"`
	Record   *Record    `json:"record,omitempty"`
	Approval *Approval  `json:"approval,omitempty"`
}

// Derive works out a stage's state from its run record, its approval and
// the files on disk. settings are the model settings a run would use now.
func Derive(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, settings Settings) (*StageState, error) {
	return derive(ws, st, c, settings, nil)
}

// configJudge says why a stage's settings cannot be used or judged, ""
// when they can; changed says whether they differ from its last run's.
type configJudge func(changed bool) string

// derive is Derive with the settings' problems, when judge is not nil:
// a stage with one is in ConfigError, keeping the state it would have
// had without the change of settings.
func derive(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, settings Settings, judge configJudge) (*StageState, error) {
	s, problem, err := deriveState(ws, st, c, settings, judge)
	if err != nil || problem == "" {
		return s, err
	}
	s.Kept, s.Status, s.Reason = s.Status, ConfigError, problem
	return s, nil
}

func deriveState(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, settings Settings, judge configJudge) (*StageState, string, error) {
	problem := ""
	if judge != nil {
		problem = judge(false)
	}
	s := &StageState{Stage: st.Name}
	rec, err := ReadRecord(ws.Disk, st.Dir)
	if err != nil {
		return nil, "", err
	}
	appr, err := ReadApproval(ws.Disk, st.Dir)
	if err != nil {
		return nil, "", err
	}
	reg, err := ReadRegenerate(ws.Disk, st.Dir)
	if err != nil {
		return nil, "", err
	}
	s.Record, s.Approval = rec, appr
	outs, err := OutputHashes(ws, st, c)
	if workspace.Refused(err) {
		// An output icm will not read (a link out of the workspace, a
		// named pipe) is no output to review, approve or hash.
		s.Status, s.Reason = Invalid, "its output cannot be used: "+err.Error()
		return s, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	s.Outputs = outs
	present := false
	for _, h := range outs {
		if h != Missing {
			present = true
		}
	}
	// A manual step and a run that only proposes changes outside output/
	// have a result to approve without a file in output/.
	result := present || rec.answered()
	approved := appr != nil && result && sameHashes(appr.Outputs, outs)
	s.Manual = rec != nil && rec.Status == RunManual
	if rec != nil {
		t := rec.Finished
		s.LastRun = &t
		// The record's Verify results are about the outputs it wrote: once
		// a person changed them (and approval checks again), they describe
		// nothing on disk.
		s.VerifyFailed = rec.VerifyFailed() && sameHashes(rec.Outputs, outs)
		if sameHashes(rec.Outputs, outs) {
			s.RubricFailed, s.Rubric = rec.RubricFailed(), RubricLine(rec.Rubric)
		}
		s.ToolsFailed = rec.Status == RunDone && rec.ToolsAllFailed()
		if rec.Status == RunDone && rec.Override {
			s.RanWith, s.Configured = rec.Model, rec.Configured
		}
		if rec.Status == RunDone && rec.Agent != "" {
			s.WrittenBy = AgentPrefix + rec.Agent
		}
		if lf := rec.LastFailure; rec.Status == RunDone && lf != nil && (lf.Settings == "" || lf.Settings == settings.Hash()) {
			s.LastFailure = lf
		}
	}
	switch {
	case rec == nil && !present && c.Manual() != nil:
		s.Status, s.Reason = Pending, "a manual step, not done yet: "+c.Manual().Why
	case rec == nil && !present:
		s.Status, s.Reason = Pending, "not run yet"
	case rec == nil && approved && appr.Adopted:
		s.Status, s.Reason = Approved, "adopted: committed with the workspace and kept as approved"
	case rec == nil && approved:
		s.Status, s.Reason = Approved, "output approved"
	case rec == nil && reg != nil && sameHashes(reg.Outputs, outs):
		s.Status, s.Regenerating = Pending, true
		s.Reason = "committed with the workspace, to be regenerated: the next run writes it again (the committed files are kept in history)"
	case rec == nil && appr == nil:
		s.Status, s.Committed = Awaiting, true
		s.Reason = "committed, not made by icm: keep it as approved, or regenerate it"
	case rec == nil:
		s.Status, s.Reason = Awaiting, "output present but not approved"
	case rec.Status == RunWriting:
		s.Status, s.Reason = Failed, "the last run was interrupted while writing its outputs; run it again"
	case rec.Status != RunDone && rec.Status != RunManual:
		s.Status = Failed
		s.Reason = "last run " + rec.Status
		if rec.Error != "" {
			s.Reason += ": " + rec.Error
		}
	default:
		now, err := Fingerprint(ws, st, c)
		if err != nil {
			return nil, "", err
		}
		s.Changed = changedKeys(rec.Inputs, ownChanges(rec.Inputs, rec, appr, now))
		if len(rec.Reads) > 0 {
			read, err := ReadHashes(ws, rec.Reads)
			if err != nil {
				return nil, "", err
			}
			s.Changed = unionSorted(s.Changed, changedKeys(rec.Reads, ownChanges(rec.Reads, rec, appr, read)))
		}
		s.Edited = !sameHashes(rec.Outputs, outs)
		changed := rec.Settings != "" && rec.Settings != settings.Hash() && rec.Settings != meantHash(ws, c, settings)
		if changed && judge != nil {
			// A change to settings that cannot be used is a config error,
			// not staleness: the stage keeps its state until a valid
			// setting really differs.
			problem = judge(true)
		}
		switch {
		case len(s.Changed) > 0:
			s.Status = Stale
			s.Reason = "changed since the last run: " + strings.Join(s.Changed, ", ")
		case changed && problem == "":
			s.Status, s.Reason = Stale, "the model settings changed since the last run"
			if then, now := rec.ConfiguredModel(), settings.Model(); then != "" && then != now {
				s.Reason = fmt.Sprintf("the model changed since the last run: it ran with %s, the settings now say %s", then, orNone(now))
				if rec.Override {
					s.Reason = fmt.Sprintf("the model changed since the last run: the settings said %s (it ran with %s), now %s", then, rec.Model, orNone(now))
				}
			}
		case !result:
			s.Status, s.Reason = Pending, "outputs are missing; run the stage again"
		case approved && appr.ByAgent():
			// Shown apart: the person allowed agents to approve, and this
			// is one's approval, not theirs.
			s.Status, s.Reason = Approved, "approved by "+appr.By+", not by a person"
		case approved:
			s.Status, s.Reason = Approved, "approved"
		case s.Manual:
			s.Status, s.Reason = Awaiting, "manual step: do what its contract says, then approve it"
		case s.Edited:
			s.Status, s.Reason = Awaiting, "output edited, not approved yet"
		default:
			s.Status, s.Reason = Awaiting, "output awaiting review"
		}
	}
	return s, problem, nil
}

// HumanEdited reports whether the stage's outputs hold changes a person
// made that nobody approved: present outputs that match neither what the
// last run wrote (or found before writing) nor the approval.
func (s *StageState) HumanEdited() bool {
	present := false
	for _, h := range s.Outputs {
		if h != Missing {
			present = true
		}
	}
	if !present {
		return false
	}
	if s.Approval != nil && sameHashes(s.Approval.Outputs, s.Outputs) {
		return false
	}
	if s.Record == nil {
		return !s.Regenerating
	}
	if s.Record.Status == RunWriting || s.Record.Status == RunManual {
		return false // what changed was written by the interrupted run
	}
	return !sameHashes(s.Record.Outputs, s.Outputs) && !sameHashes(s.Record.PrevOutputs, s.Outputs)
}

// answered reports whether the record is of a run with a result to
// approve that need not be a file in output/: a manual step, or changes
// proposed to files outside output/.
func (r *Record) answered() bool {
	return r != nil && (r.Status == RunManual || (r.Status == RunDone && r.Writes != nil && len(r.Writes.Proposals) > 0))
}

// ownChanges is now with the files a stage's own approved proposals
// changed put back as the run read them (before): applying what the run
// proposed is not a change to what it read.
func ownChanges(before Hashes, rec *Record, appr *Approval, now Hashes) Hashes {
	if rec.Writes == nil || appr == nil || len(appr.Applied) == 0 {
		return now
	}
	var out Hashes
	for _, p := range rec.Writes.Proposals {
		then, read := before[p.Target]
		if !read || now[p.Target] != p.Hash {
			continue
		}
		if out == nil {
			out = make(Hashes, len(now))
			for k, v := range now {
				out[k] = v
			}
		}
		out[p.Target] = then
	}
	if out == nil {
		return now
	}
	return out
}

func sameHashes(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func changedKeys(before, now map[string]string) []string {
	var out []string
	for k, v := range now {
		if before[k] != v {
			out = append(out, k)
		}
	}
	for k := range before {
		if _, ok := now[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// unionSorted joins two sorted lists of paths, each path once.
func unionSorted(a, b []string) []string {
	for _, k := range b {
		if !slices.Contains(a, k) {
			a = append(a, k)
		}
	}
	sort.Strings(a)
	return a
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
