package fault

import (
	"fmt"
	"strings"
)

// The constructors below give each kind its hint and actions in one
// place, so the CLI, the language server and the editor say the same
// thing about the same problem. Each is named after the kind it makes
// (ModelMissing makes KindModelMissing); the variants (RubricFails,
// RerunWouldApprove, NoModelNamed) say in their comment which kind they
// make. Core packages call them; the message is theirs.

// ModelUnreachable is a model server that does not answer at url ("" for a
// pool of several); command, when known, starts one.
func ModelUnreachable(msg, url, command string) *Error {
	// The message names the address: the hint says what to do, without
	// naming it twice.
	e := &Error{Kind: KindModelUnreachable, Msg: msg, Hint: "start the model servers, or point icm at ones that run"}
	if url != "" {
		e.Hint = "start the model server, or point icm at one that runs"
	}
	return e.With(Action{ID: StartServer, URL: url, Command: command}, Action{ID: SetServer, URL: url})
}

// ModelMissing is a model the server at url does not have; suggestion, when
// not empty, is the installed model it was probably meant to be.
func ModelMissing(msg, model, url, suggestion string) *Error {
	// The message says the model is missing (and often "did you mean"):
	// the hint says what to do, naming the likely model once more only as
	// the fix.
	e := &Error{Kind: KindModelMissing, Msg: msg,
		Hint: fmt.Sprintf("pull %q onto the server, or name a model it has", model)}
	if suggestion != "" {
		// A slip away from an installed model: that model is the likely
		// fix, and pulling the misspelt name the unlikely one.
		e.Hint = fmt.Sprintf("use %s, which the server has, or pull %q onto it", suggestion, model)
		return e.With(Action{ID: ChooseModel, Model: suggestion}, Action{ID: PullModel, Model: model, URL: url})
	}
	return e.With(Action{ID: PullModel, Model: model, URL: url}, Action{ID: ChooseModel})
}

// ModelMistyped is a KindModelMissing fault whose model is a misspelling
// of suggestion, a model the server has: that model is the one fix, since
// pulling the misspelt name would fetch nothing or something unintended.
func ModelMistyped(msg, model, suggestion string) *Error {
	e := &Error{Kind: KindModelMissing, Msg: msg,
		Hint: fmt.Sprintf("use %s, which the server has: %q is not a model it has", suggestion, model)}
	return e.With(Action{ID: ChooseModel, Model: suggestion})
}

// NotInRegistry is a KindModelMissing fault: a pull of a name the model
// registry does not have. Pulling it again cannot help; what can is the
// installed model it was probably meant to be (suggestion, "" when none
// is close) or another of the server's models (installed).
func NotInRegistry(model, suggestion string, installed []string, cause error) *Error {
	e := &Error{Kind: KindModelMissing, Err: cause,
		Msg: fmt.Sprintf("the model registry has no model named %q, so the server could not download it", model)}
	const library = "look the name and tag up at https://ollama.com/library"
	switch {
	case suggestion != "":
		e.Hint = fmt.Sprintf("did you mean %s, which the server has? Otherwise %s", suggestion, library)
		e.Actions = append(e.Actions, Action{ID: ChooseModel, Model: suggestion})
	case len(installed) > 0:
		e.Hint = fmt.Sprintf("use a model the server has (%s), or %s", listSome(installed, 5), library)
	default:
		e.Hint = library
	}
	return e.With(Action{ID: ChooseModel})
}

// listSome joins the first n names, saying how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// WindowExceeded is a prompt that cannot fit the model's context window.
func WindowExceeded(msg string) *Error {
	return &Error{Kind: KindWindowExceeded, Msg: msg,
		Hint: "shorten the stage's inputs (scope them to the sections it needs), or use a model with a larger window"}
}

// Truncated is a prompt the server read only part of.
func Truncated(msg string) *Error {
	return &Error{Kind: KindTruncated, Msg: msg,
		Hint: "the server cut the prompt to fit its window: shorten the stage's inputs, or raise [model] num_ctx"}
}

// Incomplete is an answer that ran out of room.
func Incomplete(msg, stage string) *Error {
	return (&Error{Kind: KindIncomplete, Msg: msg,
		Hint: "raise max_output (config.toml [model] or the contract's ## Model), or ask for a shorter answer in the Process"}).In(stage)
}

// ModelFailed is a failed model call of no more specific kind.
func ModelFailed(msg, hint string) *Error {
	return &Error{Kind: KindModelFailed, Msg: msg, Hint: hint}
}

// RunnerStopped is a model server whose runner stopped under the call;
// hint names the likely cause and its fix, config (when known) is the
// config.toml that sets what the fix changes.
func RunnerStopped(msg, hint, config string) *Error {
	e := &Error{Kind: KindRunnerStopped, Msg: msg, Hint: hint}
	if config != "" {
		e = e.With(Action{ID: OpenFile, File: config})
	}
	return e
}

// VerifyFailed is a stage whose Verify checks fail: findings are "file:line:
// message" lines, file and line the first finding's place.
func VerifyFailed(stage string, findings []string, file string, line int) *Error {
	e := &Error{Kind: KindVerifyFailed, Stage: stage, File: file, Line: line,
		Msg:  fmt.Sprintf("stage %s has failing Verify checks: %s", stage, strings.Join(findings, "; ")),
		Hint: "fix the output and approve it, or approve it as it is"}
	if file != "" {
		e.Actions = append(e.Actions, Action{ID: OpenFile, File: file, Line: line})
	}
	return e.With(Action{ID: ApproveAnyway, Stage: stage})
}

// RubricFails is a KindVerifyFailed fault: an approval refused because
// review rubric checks fail; line is the first failure's line in file (""
// and 0 when unknown).
func RubricFails(stage string, summary string, findings []string, file string, line int) *Error {
	e := &Error{Kind: KindVerifyFailed, Stage: stage, File: file, Line: line,
		Msg:  fmt.Sprintf("stage %s has failing rubric checks (%s): %s", stage, summary, strings.Join(findings, "; ")),
		Hint: "fix the output and approve it, or approve it as it is"}
	if file != "" {
		e.Actions = append(e.Actions, Action{ID: OpenFile, File: file, Line: line})
	}
	return e.With(Action{ID: ApproveAnyway, Stage: stage})
}

// RerunWouldApprove is a KindVerifyFailed fault: a gate "rerun" that
// would approve an output whose Verify checks failed.
func RerunWouldApprove(stage string) *Error {
	e := &Error{Kind: KindVerifyFailed, Stage: stage,
		Msg:  fmt.Sprintf("%s: running again would approve it, but its Verify checks failed", stage),
		Hint: "fix the output, or run again approving it as it is"}
	return e.With(Action{ID: RunAnyway, Stage: stage})
}

// EditedOutput is a stage whose outputs hold an edit nobody approved.
func EditedOutput(stage string, outputs []string, file string) *Error {
	e := &Error{Kind: KindEditedOutput, Stage: stage, File: file,
		Msg: fmt.Sprintf("stage %s: %s was edited since the last run and not approved; running again would overwrite the edit",
			stage, strings.Join(outputs, ", ")),
		Hint: "approve the edit, or run again and overwrite it (the edited version is kept in history/versions/)"}
	return e.With(Action{ID: Approve, Stage: stage}, Action{ID: CompareModel, Stage: stage}, Action{ID: RunAnyway, Stage: stage})
}

// Committed asks, once, what to do with outputs that were there before
// any run of icm (committed with the workspace, the author's own result):
// keep them as approved, or regenerate them. It is a KindEditedOutput
// fault, since running on would overwrite files no run wrote. stage is
// the stage the run was for ("" for the next one); what names the stages
// and their files ("01-menu: stages/01-menu/output/menu.md"); file is the
// first file.
func Committed(stage string, what []string, file string) *Error {
	e := &Error{Kind: KindEditedOutput, Stage: stage, File: file,
		Msg: fmt.Sprintf("outputs committed with the workspace, not made by icm: %s; keep them as approved, or regenerate them",
			strings.Join(what, "; ")),
		Hint: "keep them, and each of those stages is approved as it is (recorded as adopted); or regenerate them, and each runs again in its turn, its committed files kept in history/versions/"}
	return e.With(Action{ID: Adopt, Stage: stage}, Action{ID: Regenerate, Stage: stage})
}

// ChangedSinceRun is an approval refused because a file outside output/
// that the stage's run proposes to change was changed since the run: the
// change is applied onto the file as the run saw it, never over a
// person's edit. file is the target's absolute path; diff goes from the
// file as it is now to the proposed change.
func ChangedSinceRun(stage, target, file, diff string) *Error {
	e := &Error{Kind: KindEditedOutput, Stage: stage, File: file, Detail: diff,
		Msg:  fmt.Sprintf("stage %s: %s changed since the run that proposes a change to it; nothing was applied and the file is as it is now", stage, target),
		Hint: "run the stage again to propose its change onto the file as it is now, or take what you want from the difference below by hand"}
	return e.With(Action{ID: RunStage, Stage: stage}, Action{ID: OpenFile, File: file})
}

// ContractInvalid is a stage that cannot run because its contract has errors;
// line is the first error's line.
func ContractInvalid(stage, contract string, line int, errs []string) *Error {
	e := &Error{Kind: KindContractInvalid, Stage: stage, File: contract, Line: line,
		Msg:  fmt.Sprintf("stage %s cannot run: %s", stage, strings.Join(errs, "; ")),
		Hint: "fix the errors in the stage's contract"}
	return e.With(Action{ID: OpenFile, File: contract, Line: line}, Action{ID: RunCheck})
}

// Stale is a stage whose inputs or settings changed since it ran.
func Stale(stage, reason string) *Error {
	e := &Error{Kind: KindStale, Stage: stage,
		Msg:  fmt.Sprintf("stage %s is stale: %s", stage, reason),
		Hint: "run it again, or approve it as it is"}
	return e.With(Action{ID: RunStage, Stage: stage}, Action{ID: ApproveAnyway, Stage: stage})
}

// NotRun is a stage with no output yet.
func NotRun(stage string) *Error {
	e := &Error{Kind: KindNotRun, Stage: stage,
		Msg:  fmt.Sprintf("stage %s has no output to approve yet", stage),
		Hint: "run it first"}
	return e.With(Action{ID: RunStage, Stage: stage})
}

// Unapproved is a stage asked to run while upstream, an earlier stage
// whose output it reads, is not approved: its state says how it stands
// ("awaiting review", "pending"). One awaiting review is approved first;
// another runs first.
func Unapproved(stage, upstream, state string, awaiting bool) *Error {
	e := &Error{Kind: KindUnapproved, Stage: stage,
		Msg: fmt.Sprintf("%s reads the output of %s, which is not approved (%s)", stage, upstream, state)}
	if awaiting {
		e.Hint = fmt.Sprintf("read %s's output, edit it if needed and approve it; then run %s", upstream, stage)
		return e.With(Action{ID: Approve, Stage: upstream})
	}
	e.Hint = fmt.Sprintf("run %s and approve it first; then run %s", upstream, stage)
	return e.With(Action{ID: RunStage, Stage: upstream})
}

// RunFailed is a stage whose last run failed.
func RunFailed(stage, reason string) *Error {
	e := &Error{Kind: KindRunFailed, Stage: stage,
		Msg:  fmt.Sprintf("stage %s: its last run failed (%s)", stage, reason),
		Hint: "run it again, or approve the outputs on disk as they are"}
	return e.With(Action{ID: RunStage, Stage: stage}, Action{ID: ApproveAnyway, Stage: stage})
}

// ScriptFailed is a Script stage's command that failed.
func ScriptFailed(msg, stage, contract string) *Error {
	e := &Error{Kind: KindScriptFailed, Stage: stage, File: contract, Msg: msg,
		Hint: "fix the script or what it reads, then run the stage again"}
	return e.With(Action{ID: OpenFile, File: contract}, Action{ID: RunStage, Stage: stage})
}

// Locked is a workspace another run is working in.
func Locked(msg string) *Error {
	return &Error{Kind: KindLocked, Msg: msg,
		Hint: "wait for that run to end, or stop it (a run that was killed leaves the workspace free)"}
}

// ToolFailed is a stage whose MCP servers could not be started.
func ToolFailed(msg, stage string, cause error) *Error {
	return (&Error{Kind: KindToolFailed, Msg: msg, Err: cause,
		Hint: "check the server's entry (config.toml [mcp.servers], .vscode/mcp.json or .mcp.json) and that its command runs"}).In(stage)
}

// ConfigInvalid is a setting that cannot be used; file, when known, holds it.
func ConfigInvalid(msg, hint, file string) *Error {
	e := &Error{Kind: KindConfigInvalid, Msg: msg, Hint: hint, File: file}
	if file != "" {
		e.Actions = append(e.Actions, Action{ID: OpenFile, File: file})
	}
	return e
}

// NoModelNamed is a KindConfigInvalid fault: a stage that needs a model
// when none is named anywhere.
func NoModelNamed(stage, configFile string) *Error {
	e := ConfigInvalid(fmt.Sprintf("stage %s: no model named", stage),
		"name one: [model] name in config.toml, a `model:` line in the contract's ## Model, or the model setting", configFile)
	e.Stage = stage
	return e.With(Action{ID: ChooseModel})
}

// NotFound is a workspace or stage a request named that does not exist.
func NotFound(msg, hint string) *Error {
	return &Error{Kind: KindNotFound, Msg: msg, Hint: hint}
}

// InvalidRequest is a request with missing or malformed arguments.
func InvalidRequest(msg, hint string) *Error {
	return &Error{Kind: KindInvalidRequest, Msg: msg, Hint: hint}
}

// UnknownCommand is a request for a command icm does not have.
func UnknownCommand(command string, known []string) *Error {
	return &Error{Kind: KindUnknownCommand, Msg: fmt.Sprintf("unknown command %q", command),
		Hint: "icm offers: " + strings.Join(known, ", ")}
}

// Untrusted is work refused because it would act for a workspace whose
// person has not trusted it: msg says what it would have done and why the
// workspace is not trusted; root is the workspace's folder.
func Untrusted(msg, root string) *Error {
	return (&Error{Kind: KindUntrusted, Msg: msg,
		Hint: "look at what the workspace would be allowed to run, contact and read, and trust it if you expect all of it"}).
		With(Action{ID: TrustWorkspace, File: root})
}

// cancelHint is what every cancelled piece of work tells a person: the
// engine keeps each finished stage, item and test job, so nothing done
// before the cancel is lost.
const cancelHint = "the work finished before the cancel is kept; running again resumes it"

// Cancelled is work a person (or the client) cancelled; cause is the
// context's error, for errors.Is.
func Cancelled(msg string, cause error) *Error {
	return &Error{Kind: KindCancelled, Msg: msg, Hint: cancelHint, Err: cause}
}

// Failed is a problem of no more specific kind; hint may be "".
func Failed(msg, hint string, cause error) *Error {
	return &Error{Kind: KindFailed, Msg: msg, Hint: hint, Err: cause}
}

// ReportURL is where a person reports a bug in icm.
const ReportURL = "https://github.com/icm-tool/icm/issues"

// Internal is a bug in icm: an error that reached a person without a kind,
// so nobody said what it means or what to do. cause is the error.
func Internal(msg string, cause error) *Error {
	return &Error{Kind: KindInternal, Msg: msg, Err: cause,
		Hint: "this is a bug in icm, not a problem of the workspace: please report it, with this message, at " + ReportURL}
}
