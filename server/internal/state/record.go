package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// FormatVersion is the version of the record files; readers refuse newer ones.
const FormatVersion = 1

// Folder and file names of a stage's state, inside the stage folder.
const (
	StateDir     = ".icm"
	RunFile      = "run.json"
	ApprovalFile = "approval.json"
	ItemsDir     = "items"
)

// Run statuses.
const (
	RunDone       = "done"
	RunFailed     = "failed"
	RunIncomplete = "incomplete"
	// RunWriting is recorded just before outputs are written; a record
	// still saying so means the run was killed while writing.
	RunWriting = "writing"
	// RunManual is a stage icm showed the person as a step of theirs (a
	// command to run, a deploy, an approval of theirs) without calling a
	// model: it waits for their approval.
	RunManual = "manual"
)

// Record is the record of a stage's last run, written next to its outputs.
// It holds the hashes of everything the run read, so a later change to any
// of them marks the stage stale.
type Record struct {
	Version  int       `json:"version"`
	Stage    string    `json:"stage"`
	RunID    string    `json:"run_id"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Status is done, failed or incomplete (an answer cut for length).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Inputs maps workspace-relative paths of everything the run read (the
	// contract, layer 0 and 1, inputs, the For each source, schema files) to
	// their hashes; "missing" for a file that was absent.
	Inputs Hashes `json:"inputs"`
	// Reads maps the files the model read through icm's read tool
	// (workspace-relative, "/..." for a shared one) to their hashes as
	// read: a later change to one marks the stage stale, as an input's
	// does.
	Reads Hashes `json:"reads,omitempty"`
	// Settings is the hash of the configured model settings the run was
	// made under (config.toml, the contract's ## Model, the editor's
	// setting): a one-off override is not part of it, so a stage run with
	// one is stale only when the configured settings change.
	Settings string `json:"settings"`
	// Model is the model the run used.
	Model string `json:"model,omitempty"`
	// Override is set when Model was a one-off choice for this run (icm
	// run --model) rather than the configured model; Configured is the
	// model the settings named then, which it stood in for ("" when they
	// named none).
	Override   bool   `json:"override,omitempty"`
	Configured string `json:"configured_model,omitempty"`
	// Agent names the coding agent that handed the outputs in over MCP
	// (the client's own name) when no model of icm's wrote them; Model is
	// then AgentPrefix+Agent and Configured the model the settings named.
	// ContextID is the assembled context the agent said it worked from
	// (assemble.Context.ID), the same one the run's trace holds.
	Agent     string `json:"agent,omitempty"`
	ContextID string `json:"context_id,omitempty"`
	// Outputs maps workspace-relative output paths to the hashes written.
	Outputs Hashes `json:"outputs"`
	// PrevOutputs are the output hashes from before this run wrote, so an
	// interrupted write is not mistaken for a person's edit.
	PrevOutputs Hashes `json:"prev_outputs,omitempty"`
	// Verify holds the results of the contract's Verify checks.
	Verify []VerifyResult `json:"verify,omitempty"`
	// Rubric holds the results of the stage's review rubrics
	// (references/review-rubric.md, references/<output-stem>-rubric.md).
	Rubric []RubricCheck `json:"rubric,omitempty"`
	// Warnings are what icm warned of in the contract when the stage ran.
	Warnings []Warning `json:"warnings,omitempty"`
	// Items is the number of For each items (0 when none).
	Items int `json:"items,omitempty"`
	// StopReason says how the agent loop ended (done, tool-limit, stuck, ...).
	StopReason   string `json:"stop_reason,omitempty"`
	PromptTokens int    `json:"prompt_tokens,omitempty"`
	OutputTokens int    `json:"output_tokens,omitempty"`
	ModelCalls   int    `json:"model_calls,omitempty"`
	ToolCalls    int    `json:"tool_calls,omitempty"`
	// ToolErrors counts the tool calls that failed; ToolFailures say how
	// (the first MaxToolFailures of them), so a run that could not search
	// or read is never taken for one that did.
	ToolErrors   int           `json:"tool_errors,omitempty"`
	ToolFailures []ToolFailure `json:"tool_failures,omitempty"`
	// Sources are the URLs the run's tool calls returned or read and the
	// ones its inputs gave, for the `sources` checks when a person
	// approves later; nil in records from before icm kept them.
	Sources *SourceURLs `json:"sources,omitempty"`
	// Evidence says in one line what the outputs rest on as the run wrote
	// them ("21 of 24 paragraphs supported · 1 URL never read"; "" when it
	// was not worked out); EvidenceClean that every unit was supported and
	// nothing was marked. The gate summary shows it in every face.
	Evidence      string `json:"evidence,omitempty"`
	EvidenceClean bool   `json:"evidence_clean,omitempty"`
	// LastFailure is set on the record of the last good run when a later
	// re-run failed: the outputs, hashes and approval of the good run stay
	// valid, and the failure is shown beside them.
	LastFailure *Attempt `json:"last_failure,omitempty"`
	// Writes says what a stage whose model names its files wrote against
	// what its contract declares: missing outputs, files written without
	// a declaration, changes proposed outside output/ (nil for a stage
	// whose answer is its one output, and in records from before).
	Writes *Writes `json:"writes,omitempty"`
}

// SourceURLs say where the URLs a run may cite came from.
type SourceURLs struct {
	// Tools is set when the stage offered tools.
	Tools     bool     `json:"tools"`
	FromTools []string `json:"from_tools,omitempty"`
	Given     []string `json:"given,omitempty"`
}

// MaxToolFailures bounds the tool failures a record keeps (the trace has
// every one).
const MaxToolFailures = 20

// ToolFailure is one tool call that failed.
type ToolFailure struct {
	// Tool is the name the model called.
	Tool string `json:"tool"`
	// Item is the For each item's title ("" for a stage without one).
	Item string `json:"item,omitempty"`
	// Error is what went wrong; never empty.
	Error string `json:"error"`
}

// Attempt is a run of a stage that did not finish (failed, cut off for
// length): it leaves the stage's outputs and approval as they were.
type Attempt struct {
	RunID    string    `json:"run_id"`
	Status   string    `json:"status"`
	Error    string    `json:"error"`
	Finished time.Time `json:"finished"`
	// Settings is the hash of the configured settings the attempt ran
	// under ("" when unknown): once they change, the failure is about
	// settings that are gone (a model name since fixed) and is not shown.
	Settings string `json:"settings,omitempty"`
}

// ConfiguredModel is the model the settings named when the run was made:
// the one an override stood in for, else the one it ran with.
func (r *Record) ConfiguredModel() string {
	if r.Override || r.Agent != "" {
		return r.Configured
	}
	return r.Model
}

// ToolsAllFailed reports whether the run called tools and every call failed.
func (r *Record) ToolsAllFailed() bool {
	return r != nil && r.ToolCalls > 0 && r.ToolErrors >= r.ToolCalls
}

// VerifyResult is the outcome of one Verify check.
type VerifyResult struct {
	Check string `json:"check"`
	OK    bool   `json:"ok"`
	// Findings say what to fix, with file and line when known.
	Findings []VerifyFinding `json:"findings,omitempty"`
}

// VerifyFinding is one problem a Verify check found.
type VerifyFinding struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// VerifyFailed reports whether any check failed.
func (r *Record) VerifyFailed() bool {
	for _, v := range r.Verify {
		if !v.OK {
			return true
		}
	}
	return false
}

// Approval records that a person (or an auto gate) accepted a stage's
// outputs as they were at that moment.
type Approval struct {
	Version    int       `json:"version"`
	Stage      string    `json:"stage"`
	ApprovedAt time.Time `json:"approved_at"`
	RunID      string    `json:"run_id,omitempty"`
	Outputs    Hashes    `json:"outputs"`
	// By is "user", "auto" (gate auto), "rerun" (gate rerun) or, where
	// the person's own settings let agents approve, AgentPrefix and the
	// agent's name: an agent's approval is never taken for a person's.
	By string `json:"by"`
	// Forced is set when approved despite failing Verify or rubric checks.
	Forced bool `json:"forced,omitempty"`
	// Adopted is set when the outputs were committed with the workspace,
	// not made by icm, and the person kept them as they are.
	Adopted bool `json:"adopted,omitempty"`
	// Applied lists the proposed changes to files outside output/ the
	// approval applied (workspace-relative targets).
	Applied []string `json:"applied,omitempty"`
	// Reviewer names the person who approved (git's user name, else the
	// account) when By is "user"; Note is what they said of it, up to
	// MaxReviewNote bytes (a forced approval always has one).
	Reviewer string `json:"reviewer,omitempty"`
	Note     string `json:"note,omitempty"`
}

// AgentPrefix starts the Model of a run an agent made and the By of an
// approval an agent gave: "agent:claude-code".
const AgentPrefix = "agent:"

// ByAgent reports whether an agent, not a person or a gate, approved.
func (a *Approval) ByAgent() bool {
	return a != nil && strings.HasPrefix(a.By, AgentPrefix)
}

// Hash returns the content hash used in records.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Missing is the hash recorded for a file that does not exist.
const Missing = "missing"

// HashFile hashes a file of the workspace, returning Missing when it does
// not exist. The file is streamed, not read whole, so an output of any
// size costs no memory; it must be a regular file inside the workspace.
func HashFile(root *workspace.Root, path string) (string, error) {
	f, _, err := root.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Missing, nil
	}
	if err != nil {
		return "", fmt.Errorf("unable to hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("unable to hash %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func stateFile(stageDir, name string) string { return filepath.Join(stageDir, StateDir, name) }

// ReadRecord reads a stage's run record; nil when the stage never ran.
func ReadRecord(root *workspace.Root, stageDir string) (*Record, error) {
	var r Record
	ok, err := readJSON(root, stateFile(stageDir, RunFile), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r, nil
}

// WriteRecord writes a stage's run record atomically.
func WriteRecord(root *workspace.Root, stageDir string, r *Record) error {
	r.Version = FormatVersion
	return writeJSON(root, stateFile(stageDir, RunFile), r)
}

// ReadApproval reads a stage's approval; nil when there is none.
func ReadApproval(root *workspace.Root, stageDir string) (*Approval, error) {
	var a Approval
	ok, err := readJSON(root, stateFile(stageDir, ApprovalFile), &a)
	if !ok || err != nil {
		return nil, err
	}
	return &a, nil
}

// WriteApproval writes a stage's approval atomically.
func WriteApproval(root *workspace.Root, stageDir string, a *Approval) error {
	a.Version = FormatVersion
	a.Note, a.Reviewer = clipNote(a.Note, MaxReviewNote), clipNote(a.Reviewer, maxNoteName)
	return writeJSON(root, stateFile(stageDir, ApprovalFile), a)
}

// unreadableRecord is a record that is not the JSON icm wrote (edited by
// hand, or cut short).
func unreadableRecord(path string, err error) *fault.Error {
	f := fault.Failed(fmt.Sprintf("unable to read %s: %v (delete the file to reset the stage's state)", path, err),
		"delete the file to reset the stage's state", err)
	if filepath.IsAbs(path) {
		f.File = path
	}
	return f
}

// maxStateFile caps a record read back: records are a few KB.
const maxStateFile = 16 << 20

func readJSON(root *workspace.Root, path string, v any) (bool, error) {
	data, err := root.ReadFileMax(path, maxStateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("unable to read %s: %w", path, err)
	}
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return false, unreadableRecord(path, err)
	}
	if head.Version > FormatVersion {
		return false, fault.Failed(fmt.Sprintf("%s was written by a newer icm (format %d); upgrade icm", path, head.Version), "upgrade icm to the version that wrote it", nil)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, unreadableRecord(path, err)
	}
	return true, nil
}

func writeJSON(root *workspace.Root, path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("unable to encode %s: %w", path, err)
	}
	return root.WriteFile(path, append(data, '\n'), 0o644)
}
