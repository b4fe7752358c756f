package fault

import (
	"fmt"
	"strings"
)

// The constructors below give each kind its hint and actions in one
// place, so the CLI, the language server and the editor say the same
// thing about the same problem. Core packages call them; the message is
// theirs.

// Unreachable is a model server that does not answer at url ("" for a
// pool of several); command, when known, starts one.
func Unreachable(msg, url, command string) *Error {
	e := &Error{Kind: ModelUnreachable, Msg: msg, Hint: "start the model servers, or point icm at ones that run"}
	if url != "" {
		e.Hint = fmt.Sprintf("start the model server at %s, or point icm at one that runs", url)
	}
	return e.With(Action{ID: StartServer, URL: url, Command: command}, Action{ID: SetServer, URL: url})
}

// NoModel is a model the server at url does not have; suggestion, when
// not empty, is the installed model it was probably meant to be.
func NoModel(msg, model, url, suggestion string) *Error {
	// The message says the model is missing (and often "did you mean"):
	// the hint says what to do, naming the likely model once more only as
	// the fix.
	e := &Error{Kind: ModelMissing, Msg: msg,
		Hint: fmt.Sprintf("pull %q onto the server, or name a model it has", model)}
	if suggestion != "" {
		e.Hint = fmt.Sprintf("use %s, which the server has, or pull %q onto it", suggestion, model)
	}
	return e.With(Action{ID: PullModel, Model: model, URL: url}, Action{ID: ChooseModel, Model: suggestion})
}

// TooLong is a prompt that cannot fit the model's context window.
func TooLong(msg string) *Error {
	return &Error{Kind: WindowExceeded, Msg: msg,
		Hint: "shorten the stage's inputs (scope them to the sections it needs), or use a model with a larger window"}
}

// Cut is a prompt the server read only part of.
func Cut(msg string) *Error {
	return &Error{Kind: Truncated, Msg: msg,
		Hint: "the server cut the prompt to fit its window: shorten the stage's inputs, or raise [model] num_ctx"}
}

// Unfinished is an answer that ran out of room.
func Unfinished(msg, stage string) *Error {
	return (&Error{Kind: Incomplete, Msg: msg,
		Hint: "raise max_output (config.toml [model] or the contract's ## Model), or ask for a shorter answer in the Process"}).In(stage)
}

// ModelError is a failed model call of no more specific kind.
func ModelError(msg, hint string) *Error {
	return &Error{Kind: ModelFailed, Msg: msg, Hint: hint}
}

// VerifyFails is a stage whose Verify checks fail: findings are "file:line:
// message" lines, file and line the first finding's place.
func VerifyFails(stage string, findings []string, file string, line int) *Error {
	e := &Error{Kind: VerifyFailed, Stage: stage, File: file, Line: line,
		Msg:  fmt.Sprintf("stage %s has failing Verify checks: %s", stage, strings.Join(findings, "; ")),
		Hint: "fix the output and approve it, or approve it as it is"}
	if file != "" {
		e.Actions = append(e.Actions, Action{ID: OpenFile, File: file, Line: line})
	}
	return e.With(Action{ID: ApproveAnyway, Stage: stage})
}

// RubricFails is an approval refused because review rubric checks fail;
// line is the first failure's line in file ("" and 0 when unknown).
func RubricFails(stage string, summary string, findings []string, file string, line int) *Error {
	e := &Error{Kind: VerifyFailed, Stage: stage, File: file, Line: line,
		Msg:  fmt.Sprintf("stage %s has failing rubric checks (%s): %s", stage, summary, strings.Join(findings, "; ")),
		Hint: "fix the output and approve it, or approve it as it is"}
	if file != "" {
		e.Actions = append(e.Actions, Action{ID: OpenFile, File: file, Line: line})
	}
	return e.With(Action{ID: ApproveAnyway, Stage: stage})
}

// RerunWouldApprove is a gate "rerun" that would approve an output whose
// Verify checks failed.
func RerunWouldApprove(stage string) *Error {
	e := &Error{Kind: VerifyFailed, Stage: stage,
		Msg:  fmt.Sprintf("%s: running again would approve it, but its Verify checks failed", stage),
		Hint: "fix the output, or run again approving it as it is"}
	return e.With(Action{ID: RunAnyway, Stage: stage})
}

// Edited is a stage whose outputs hold an edit nobody approved.
func Edited(stage string, outputs []string, file string) *Error {
	e := &Error{Kind: EditedOutput, Stage: stage, File: file,
		Msg: fmt.Sprintf("stage %s: %s was edited since the last run and not approved; running again would overwrite the edit",
			stage, strings.Join(outputs, ", ")),
		Hint: "approve the edit, or run again and overwrite it (the edited version is kept in history/versions/)"}
	return e.With(Action{ID: Approve, Stage: stage}, Action{ID: CompareModel, Stage: stage}, Action{ID: RunAnyway, Stage: stage})
}

// Invalid is a stage that cannot run because its contract has errors;
// line is the first error's line.
func Invalid(stage, contract string, line int, errs []string) *Error {
	e := &Error{Kind: ContractInvalid, Stage: stage, File: contract, Line: line,
		Msg:  fmt.Sprintf("stage %s cannot run: %s", stage, strings.Join(errs, "; ")),
		Hint: "fix the errors in the stage's contract"}
	return e.With(Action{ID: OpenFile, File: contract, Line: line}, Action{ID: RunCheck})
}

// StaleStage is a stage whose inputs or settings changed since it ran.
func StaleStage(stage, reason string) *Error {
	e := &Error{Kind: Stale, Stage: stage,
		Msg:  fmt.Sprintf("stage %s is stale: %s", stage, reason),
		Hint: "run it again, or approve it as it is"}
	return e.With(Action{ID: RunStage, Stage: stage}, Action{ID: ApproveAnyway, Stage: stage})
}

// NeverRun is a stage with no output yet.
func NeverRun(stage string) *Error {
	e := &Error{Kind: NotRun, Stage: stage,
		Msg:  fmt.Sprintf("stage %s has no output to approve yet", stage),
		Hint: "run it first"}
	return e.With(Action{ID: RunStage, Stage: stage})
}

// LastRunFailed is a stage whose last run failed.
func LastRunFailed(stage, reason string) *Error {
	e := &Error{Kind: RunFailed, Stage: stage,
		Msg:  fmt.Sprintf("stage %s: its last run failed (%s)", stage, reason),
		Hint: "run it again, or approve the outputs on disk as they are"}
	return e.With(Action{ID: RunStage, Stage: stage}, Action{ID: ApproveAnyway, Stage: stage})
}

// Script is a Script stage's command that failed.
func Script(msg, stage, contract string) *Error {
	e := &Error{Kind: ScriptFailed, Stage: stage, File: contract, Msg: msg,
		Hint: "fix the script or what it reads, then run the stage again"}
	return e.With(Action{ID: OpenFile, File: contract}, Action{ID: RunStage, Stage: stage})
}

// Busy is a workspace another run is working in.
func Busy(msg string) *Error {
	return &Error{Kind: Locked, Msg: msg,
		Hint: "wait for that run to finish, or stop it; the lock frees itself when the process holding it ends"}
}

// Tools is a stage whose MCP servers could not be started.
func Tools(msg, stage string, cause error) *Error {
	return (&Error{Kind: ToolFailed, Msg: msg, Err: cause,
		Hint: "check the server's entry (config.toml [mcp.servers], .vscode/mcp.json or .mcp.json) and that its command runs"}).In(stage)
}

// Config is a setting that cannot be used; file, when known, holds it.
func Config(msg, hint, file string) *Error {
	e := &Error{Kind: ConfigInvalid, Msg: msg, Hint: hint, File: file}
	if file != "" {
		e.Actions = append(e.Actions, Action{ID: OpenFile, File: file})
	}
	return e
}

// NoModelNamed is a stage that needs a model when none is named anywhere.
func NoModelNamed(stage, configFile string) *Error {
	e := Config(fmt.Sprintf("stage %s: no model named", stage),
		"name one: [model] name in config.toml, a `model:` line in the contract's ## Model, or the model setting", configFile)
	e.Stage = stage
	return e.With(Action{ID: ChooseModel})
}

// Missing is a workspace or stage a request named that does not exist.
func Missing(msg, hint string) *Error {
	return &Error{Kind: NotFound, Msg: msg, Hint: hint}
}

// BadRequest is a request with missing or malformed arguments.
func BadRequest(msg, hint string) *Error {
	return &Error{Kind: InvalidRequest, Msg: msg, Hint: hint}
}

// NoSuchCommand is a request for a command icm does not have.
func NoSuchCommand(command string, known []string) *Error {
	return &Error{Kind: UnknownCommand, Msg: fmt.Sprintf("unknown command %q", command),
		Hint: "icm offers: " + strings.Join(known, ", ")}
}

// NotTrusted is work refused because it would act for a workspace whose
// person has not trusted it: msg says what it would have done and why the
// workspace is not trusted; root is the workspace's folder.
func NotTrusted(msg, root string) *Error {
	return (&Error{Kind: Untrusted, Msg: msg,
		Hint: "look at what the workspace would be allowed to run, contact and read, and trust it if you expect all of it"}).
		With(Action{ID: TrustWorkspace, File: root})
}
