package testcase

// Finding codes of case files.
const (
	CodeNoExpect        = "case-no-expectations"
	CodeBadExpect       = "case-bad-expectation"
	CodeBadInput        = "case-bad-input"
	CodeDuplicateInput  = "case-duplicate-input"
	CodeStandInMissing  = "case-stand-in-missing"
	CodeStandInUnused   = "case-stand-in-unused"
	CodeInputUncovered  = "case-input-uncovered"
	CodeUnknownOutput   = "case-unknown-output"
	CodeFileMissing     = "case-file-missing"
	CodeUnknownSection  = "case-unknown-section"
	CodeDuplicateSect   = "case-duplicate-section"
	CodeNoTitle         = "case-no-title"
	CodePathEscape      = "case-path-escape"
	CodeStageNotRunable = "case-stage-not-runnable"
)
