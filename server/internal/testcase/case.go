package testcase

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
)

// Names of the folder and file that hold cases.
const (
	// Dir is the folder of a stage that holds its cases.
	Dir = "tests"
	// FolderFile is the case file of a case kept as a folder.
	FolderFile = "CASE.md"
)

// Case is one parsed test case.
type Case struct {
	// ID is "STAGE/NAME": the stage folder and the case's file (without
	// .md) or folder name.
	ID    string `json:"id"`
	Stage string `json:"stage"`
	Name  string `json:"name"`
	// File is the case file's absolute path.
	File string `json:"file"`
	// Dir is the folder the case's own paths are relative to: the case
	// folder, or tests/ for a case kept as one file.
	Dir string `json:"dir"`
	// Folder is true for a case kept as a folder with a CASE.md.
	Folder bool `json:"folder,omitempty"`
	// Title is from "# Case: TITLE" or "# TITLE"; Name when there is none.
	Title      string         `json:"title"`
	TitleRange document.Range `json:"title_range"`
	// Summary is the text between the title and the first section.
	Summary string `json:"summary,omitempty"`
	// Inputs are the stand-ins, in order.
	Inputs []StandIn `json:"inputs"`
	// Expect are the expectations, in order.
	Expect []Expectation `json:"expect"`
	// Hash is the case file's content hash (results name the version they ran).
	Hash string `json:"hash"`
	// Findings are problems found in the case's own text (Check adds more).
	Findings []contract.Finding `json:"findings"`
}

// StandIn replaces one file the stage reads with other content for the
// case's run.
type StandIn struct {
	// Target is the replaced path as the contract writes it (relative to
	// the stage folder, e.g. "input.md" or "../03-outline/output/outline.md").
	Target      string         `json:"target"`
	TargetRange document.Range `json:"target_range"`
	// From is the file holding the content, relative to the case's Dir;
	// "" when the content is inline.
	From      string         `json:"from,omitempty"`
	FromRange document.Range `json:"from_range"`
	// Inline is the content of a fenced block under a `### TARGET` heading.
	Inline   string `json:"inline,omitempty"`
	IsInline bool   `json:"is_inline,omitempty"`
	// Range covers the whole entry (list item, or heading and block).
	Range document.Range `json:"range"`
}

// Expectation kinds beyond the Verify checks.
const (
	KindContains    = "contains"
	KindNotContains = "not-contains"
	KindMatches     = "matches"
	KindSections    = "sections"
	KindRubric      = "rubric"
	// KindVerify states the outcome of the stage's own Verify checks:
	// Value "passes" (what every case expects unless it says otherwise)
	// or "fails" (for a case that feeds the stage bad material on purpose).
	KindVerify = "verify"
)

// DefaultThreshold is the rubric score (0-10) a case needs when its line
// gives none.
const DefaultThreshold = 7

// Expectation is one line of the Expect section.
type Expectation struct {
	// Kind is a Verify check kind (non-empty, headings, ...) or one of the
	// Kind constants.
	Kind string `json:"kind"`
	// Text is the line as written, without the list marker: what reports show.
	Text string `json:"text"`
	// Check is set for a Verify check (and for sections, which counts `##`
	// sections as headings does).
	Check *contract.Check `json:"check,omitempty"`
	// Value is the text for contains and not-contains, the pattern for
	// matches, the criterion for rubric.
	Value string `json:"value,omitempty"`
	// Threshold is the rubric score needed, 0-10.
	Threshold float64 `json:"threshold,omitempty"`
	// Output names the output file the expectation reads, as written under a
	// `### FILE` heading; "" means the stage's first output (every output
	// for Verify checks).
	Output string         `json:"output,omitempty"`
	Range  document.Range `json:"range"`
}

// Label is the expectation as a report names it.
func (e Expectation) Label() string {
	if e.Output == "" {
		return e.Text
	}
	return e.Text + " (" + e.Output + ")"
}
