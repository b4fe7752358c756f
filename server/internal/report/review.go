package report

import "github.com/icm-tool/icm/server/internal/evidence"

// Review is what a stage's gate shows, line by line: the contract's Review
// Gate checklist, the Verify and rubric results of its last run, what icm
// warned of, and what the outputs rest on (`icm review`).
type Review struct {
	Stage string `json:"stage"`
	// State is the stage's state label ("awaiting review").
	State string `json:"state"`
	// Outputs are the outputs reviewed, workspace-relative.
	Outputs []string `json:"outputs"`
	// Lines are the gate's results, the checklist first.
	Lines []ReviewLine `json:"lines"`
	// Evidence is each Markdown output's evidence, and EvidenceLine its
	// one-line summary ("21 of 24 paragraphs supported · 1 URL never
	// read").
	Evidence     []*evidence.Result `json:"evidence,omitempty"`
	EvidenceLine string             `json:"evidence_summary,omitempty"`
}

// The parts of a review a line belongs to.
const (
	ReviewChecklist = "checklist"
	ReviewVerify    = "verify"
	ReviewRubric    = "rubric"
	ReviewWarning   = "warning"
	ReviewEvidence  = "evidence"
)

// The results of a review line besides CheckWarn and CheckFail: the
// vocabulary's check results, shown on a gate's lines as GateWord says.
const (
	CheckOK   = "ok"
	CheckSkip = "skip"
)

// ReviewLine is one result at the gate.
type ReviewLine struct {
	// Part is what the line comes from (ReviewChecklist, ...).
	Part string `json:"part"`
	// Status is CheckOK, CheckWarn, CheckFail or CheckSkip (an item of
	// the checklist, which only a person can check).
	Status string `json:"status"`
	// Check names the Verify check or the rubric file, when there is one.
	Check string `json:"check,omitempty"`
	// File (workspace-relative) and Line (1-based, 0 for none) place it.
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}
