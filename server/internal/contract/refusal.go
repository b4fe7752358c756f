package contract

import "strings"

// A contract is instructions to an agent: icm's reading of it helps and
// never decides whether the author's instructions run. So an error, in
// `icm check`, the editor and a run alike, means one thing: the stage will
// not run. Only a fact icm is certain makes the run wrong is one (see
// docs/refusals.md): a plain listed input that exists nowhere and that no
// stage writes, a prompt over the model's window, a config.toml icm cannot
// use, a file icm will not read (it leaves the workspace, it is no regular
// file, it is over the read cap, a schema refers outside), a contract it
// cannot read at all, a tool server that is not configured. Everything
// else, however certain icm is that a line is malformed, is a warning:
// the run goes ahead and the warning is shown at its gate.

// refusals are the codes whose errors refuse a run.
var refusals = map[string]bool{
	CodeInputMissing: true, CodeForEachSource: true, CodeFormatFileMissing: true,
	CodeOverWindow: true, CodeConfig: true,
	CodePathEscape: true, CodeFileRefused: true, CodeSchemaRef: true, CodeBadSchema: true,
	CodeNoContract: true, CodeContractTooLarge: true, CodeTooDeep: true,
	CodeUnknownServer: true, CodeUnknownTool: true,
}

// Refuses reports whether an error of code refuses what its file is for:
// a run for a contract's finding, the workspace for config.toml's, the
// test for a test case's. Any other error is a warning (Settle).
func Refuses(code string) bool {
	return refusals[code] || strings.HasPrefix(code, "config") || strings.HasPrefix(code, "case-")
}

// Settle gives a finding its basis and the severity the rule allows: an
// error on a basis icm is not certain of is a note, and one that refuses
// nothing (Refuses) a warning.
func Settle(f Finding) Finding {
	if f.Basis == "" {
		f.Basis = DefaultBasis(f.Code)
	}
	if f.Severity != Error {
		return f
	}
	switch {
	case !f.Basis.Certain():
		f.Severity = Info
	case !Refuses(f.Code):
		f.Severity = Warning
	}
	return f
}

// Plain reports whether an input names one file by a plain path: no
// placeholder, wildcard or brace list, not a folder, not a web address,
// not read from among other words and not marked optional. Only such an
// input, missing with no stage to write it, refuses a run: of anything
// else icm cannot be sure the stage has nothing to read.
func (in Input) Plain() bool {
	return in.Path != "" && !in.NonFile && !in.Templated && !in.Glob && !in.Embedded && !in.Optional && in.Braces == "" &&
		len(in.Unset) == 0 && !strings.HasSuffix(in.Path, "/") && !strings.Contains(in.Path, "://")
}
