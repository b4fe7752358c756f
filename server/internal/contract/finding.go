package contract

import (
	"fmt"
	"strings"

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

// Word is the severity as a person reads it, on a finding's line and in
// the count alike (docs/vocabulary.md): Information is a note. The
// protocol's and JSON's name is String's.
func (s Severity) Word() string {
	if s == Info {
		return "note"
	}
	return s.String()
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
	// Basis says what the finding rests on (see Basis); an error rests on
	// something icm is certain of.
	Basis Basis `json:"basis,omitempty"`
}

// Basis is what a finding rests on. Contracts are other people's text:
// icm is certain of a line of its own grammar, of what is on disk and of
// what the stages declare; how it read someone else's notation (which
// column holds paths, whether a cell names a path, what a scope's words
// mean, a layer taken from where a file lives), the method's budgets and
// an opt-in profile's house rules are not certainties. Only a finding on
// a certain basis is an error.
type Basis string

// The bases.
const (
	// BasisGrammar: a line of icm's own notation (`- x -> output/`,
	// `## Verify`, `## Model`, `## Tools`), malformed.
	BasisGrammar Basis = "grammar"
	// BasisFiles: what is on disk, looked for under every base: a file
	// that is nowhere, a quoted heading the file lacks, a link out.
	BasisFiles Basis = "files"
	// BasisStages: what the stages declare: an output two stages write,
	// an input a later stage writes.
	BasisStages Basis = "stages"
	// BasisSettings: config.toml and the options of the run.
	BasisSettings Basis = "settings"
	// BasisReading: how icm read notation that is not its own.
	BasisReading Basis = "reading"
	// BasisMethod: the method's budgets and advice (line and token
	// budgets).
	BasisMethod Basis = "method"
	// BasisConventions: a rule of an opt-in conventions profile.
	BasisConventions Basis = "conventions"
	// BasisState: a fact worth knowing that is no problem (a file not
	// produced yet, a file read from the repository).
	BasisState Basis = "state"
)

// Certain reports whether a finding on this basis may be an error.
func (b Basis) Certain() bool {
	switch b {
	case BasisGrammar, BasisFiles, BasisStages, BasisSettings:
		return true
	}
	return false
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
	// CodeSetupVar: a setup-time variable ({{NAME}}) with no value in
	// [vars] of config.toml.
	CodeSetupVar = "setup-variable"
	// CodeEmptyInput: an input file with nothing in it.
	CodeEmptyInput = "empty-input"
	// CodeInclude: an `@path` line of the identity or routing file that
	// icm cannot follow.
	CodeInclude = "include"
	// CodeNoRouting: the workspace has no routing file (layer 1).
	CodeNoRouting = "no-routing"
	// CodeFolderCapped: a folder or pattern input holds more than icm
	// loads of it.
	CodeFolderCapped = "folder-capped"
	// CodeNoInputLoaded: a stage whose Inputs section loads no file.
	CodeNoInputLoaded = "no-input-loaded"
	// CodeConventions: a rule of the opt-in conventions profile.
	CodeConventions = "conventions"
	// CodeSchemaRef: a reference of a schema file (a Verify json-schema,
	// a Model format) that icm will not follow: to a file outside the
	// workspace, a web address, a workspace file it cannot read.
	CodeSchemaRef = "schema-ref"
	// CodeBadSchema: a schema file that is not JSON or not a JSON Schema.
	CodeBadSchema = "bad-schema"
	// CodeSharedOrder: a stage lists files other stages load too in
	// another order than the one icm sends them in for the whole
	// workspace.
	CodeSharedOrder = "shared-order"
	// CodeUnedited: text of icm's skeletons a person has not replaced
	// yet (a new stage's purpose or Process, a placeholder input).
	CodeUnedited = "unedited-skeleton"
	// CodeReviewGate: a Review Gate section, and what icm does with it.
	CodeReviewGate = "review-gate"
	// CodeRoutingStages: the routing file names a stage that has no
	// folder, or leaves a stage folder out.
	CodeRoutingStages = "routing-stages"
)

// codeBasis is the basis of the findings of a code, when the finding
// does not give its own.
var codeBasis = map[string]Basis{
	CodeUnknownSection: BasisReading, CodeNoLayer: BasisReading, CodeNonFileInput: BasisReading,
	CodeNonFileOutput: BasisReading, CodeKeptAsText: BasisReading, CodeFreeScope: BasisReading, CodeNoInputLoaded: BasisReading,
	CodeSharedInput: BasisState, CodeInputOptional: BasisState, CodeBinaryInput: BasisState,
	CodeEmptyFolder: BasisState, CodeIdentity: BasisState, CodePlaceholderPath: BasisState,
	CodeInputNotYet: BasisState, CodeInputSelf: BasisState, CodeNoModelOutput: BasisState,
	CodeNoRouting: BasisState, CodeFolderCapped: BasisState, CodeUnedited: BasisState, CodeReviewGate: BasisState, CodeRoutingStages: BasisState,
	CodeContractTooLong: BasisMethod, CodeReferenceTooLong: BasisMethod, CodeOverBudget: BasisMethod, CodeSharedOrder: BasisMethod,
	CodeOverWindow: BasisSettings, CodeUnknownServer: BasisSettings, CodeUnknownTool: BasisSettings,
	CodeConfig: BasisSettings, CodeSetupVar: BasisSettings,
	CodePathEscape: BasisFiles, CodeInputMissing: BasisFiles, CodeScopeNotFound: BasisFiles,
	CodeNoContract: BasisFiles, CodeFormatFileMissing: BasisFiles, CodeContractTooLarge: BasisFiles,
	CodeTooDeep: BasisFiles, CodeFileRefused: BasisFiles, CodeEmptyInput: BasisFiles, CodeInclude: BasisFiles,
	CodeNoStages: BasisFiles, CodeSchemaRef: BasisFiles, CodeBadSchema: BasisFiles,
	CodeInputLater: BasisStages, CodeOutputConflict: BasisStages, CodeForEachSource: BasisStages,
	CodeConventions: BasisConventions,
}

// DefaultBasis is the basis of a finding of code that gives none: the
// code's, else (icm's own notation: contracts' sections, test cases,
// config.toml keys) the grammar, or the settings for config.toml.
func DefaultBasis(code string) Basis {
	if b, ok := codeBasis[code]; ok {
		return b
	}
	if strings.HasPrefix(code, "config") {
		return BasisSettings
	}
	return BasisGrammar
}

// String renders the finding without its position.
func (f Finding) String() string { return fmt.Sprintf("%s: %s [%s]", f.Severity, f.Message, f.Code) }
