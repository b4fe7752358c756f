package contract

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/document"
)

// Severity ranks a finding.
type Severity int

// Severities, most serious first. The values match the LSP's.
const (
	Error Severity = iota + 1
	Warning
	Info
	Hint
)

var severityNames = [...]string{Error: "error", Warning: "warning", Info: "info", Hint: "hint"}

func (s Severity) String() string {
	if s < Error || s > Hint {
		return "unknown"
	}
	return severityNames[s]
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if n != "" && n == string(b) {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("unknown severity %q", b)
}

// Finding is one diagnostic: what is wrong, where, and how serious.
type Finding struct {
	// File is the absolute path of the file the finding is about.
	File     string         `json:"file"`
	Range    document.Range `json:"range"`
	Severity Severity       `json:"severity"`
	// Code names the kind of finding, e.g. "input-missing".
	Code    string `json:"code"`
	Message string `json:"message"`
	// Data carries details for quick fixes (a suggested path, the stage
	// that produces a missing input).
	Data map[string]string `json:"data,omitempty"`
}

// Finding codes.
const (
	CodeMissingSection    = "missing-section"
	CodeEmptySection      = "empty-section"
	CodeDuplicateSection  = "duplicate-section"
	CodeUnknownSection    = "unknown-section"
	CodeNoTitle           = "no-title"
	CodeBadLayer          = "bad-layer"
	CodeLayerKind         = "layer-kind-mismatch"
	CodeNoLayer           = "no-layer"
	CodeBadInput          = "bad-input"
	CodeNonFileInput      = "non-file-input"
	CodeNonFileOutput     = "non-file-output"
	CodeSharedInput       = "shared-input"
	CodeKeptAsText        = "kept-as-text"
	CodeInputOptional     = "input-optional"
	CodeBinaryInput       = "binary-input"
	CodeEmptyFolder       = "empty-folder"
	CodeIdentity          = "identity"
	CodeNoStages          = "no-stages"
	CodePlaceholderPath   = "placeholder-path"
	CodeFreeScope         = "free-text-scope"
	CodeBadTools          = "bad-tools"
	CodeBadForEach        = "bad-for-each"
	CodeBadOutput         = "bad-output"
	CodeOutputLocation    = "output-not-in-output"
	CodeBadModel          = "bad-model"
	CodeBadVerify         = "bad-verify"
	CodeBadScript         = "bad-script"
	CodeBadGate           = "bad-gate"
	CodeContractTooLong   = "contract-too-long"
	CodePathEscape        = "path-escape"
	CodeInputMissing      = "input-missing"
	CodeInputNotYet       = "input-not-yet-produced"
	CodeInputLater        = "input-from-later-stage"
	CodeInputSelf         = "input-from-self"
	CodeScopeNotFound     = "section-not-found"
	CodeForEachSource     = "for-each-source"
	CodeOutputConflict    = "output-conflict"
	CodeReferenceTooLong  = "reference-too-long"
	CodeOverBudget        = "context-over-budget"
	CodeOverWindow        = "context-over-window"
	CodeUnknownServer     = "unknown-server"
	CodeUnknownTool       = "unknown-tool"
	CodeNoContract        = "no-contract"
	CodeConfig            = "config"
	CodeFormatFileMissing = "format-file-missing"
	CodeBadThresholds     = "bad-thresholds"
	CodeContractTooLarge  = "contract-too-large"
	CodeTooDeep           = "markdown-too-deep"
	// CodeFileRefused: a file icm will not read (not a regular file, or
	// over the read cap).
	CodeFileRefused = "file-refused"
	// CodeNoModelOutput: a model stage whose outputs all hold a
	// placeholder or name a folder: valid notation, but icm run has no
	// file to write the answer to.
	CodeNoModelOutput = "no-model-output"
)

// String renders the finding without its position.
func (f Finding) String() string { return fmt.Sprintf("%s: %s [%s]", f.Severity, f.Message, f.Code) }
