// Package faulttest holds one fault of every kind, built by the same
// constructors the core uses, for the renderers' table tests (the CLI's
// text, the language server's error data), and the check the front ends'
// tests end with: that none of their requests met an error without a kind.
package faulttest

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Root is the workspace the cases' paths are in.
var Root = filepath.FromSlash("/w/course-research")

// Cases returns one fault per kind. Adding a kind to package fault without
// a case here fails fault's TestFaulttestHasEveryKind.
func Cases() map[fault.Kind]*fault.Error {
	contract := filepath.Join(Root, "pipeline", "01-scope", "CONTEXT.md")
	output := filepath.Join(Root, "pipeline", "01-scope", "output", "objectives.md")
	config := filepath.Join(Root, "config.toml")
	url := "http://127.0.0.1:11434"
	return map[fault.Kind]*fault.Error{
		fault.KindModelUnreachable: fault.ModelUnreachable("stage 01-scope: unable to reach the Ollama server at "+url, url, "ollama serve").In("01-scope"),
		fault.KindModelMissing:     fault.ModelMissing(`stage 01-scope: the server answered 404 Not Found: model "qwen3:4b" not found`, "qwen3:4b", url, "qwen3:8b").In("01-scope"),
		fault.KindWindowExceeded:   fault.WindowExceeded("stage 01-scope: the prompt needs about 9000 tokens, more than the 8192-token window").In("01-scope").At(contract, 0).With(fault.Action{ID: fault.OpenFile, File: contract}),
		fault.KindTruncated:        fault.Truncated("stage 01-scope: the server evaluated 4096 of about 6000 prompt tokens").In("01-scope"),
		fault.KindIncomplete:       fault.Incomplete("stage 01-scope: the answer stopped at max_output (2048 tokens) before it ended", "01-scope"),
		fault.KindModelFailed:      fault.ModelFailed("stage 01-scope: the server answered 500 Internal Server Error", "see the Ollama server log for the cause").In("01-scope"),
		fault.KindRunnerStopped: fault.RunnerStopped("the model runner stopped during 04-draft, which runs 2 items at once; none of its 5 items had finished",
			"if the server's log says GGML_ASSERT ... seq_cp(), restart Ollama without OLLAMA_MULTIUSER_CACHE or set [workflow] parallel = 1", config).In("04-draft"),
		fault.KindVerifyFailed:    fault.VerifyFailed("01-scope", []string{`output/objectives.md:3: placeholder "TODO"`}, output, 3),
		fault.KindEditedOutput:    fault.EditedOutput("01-scope", []string{"pipeline/01-scope/output/objectives.md"}, output),
		fault.KindContractInvalid: fault.ContractInvalid("01-scope", contract, 7, []string{"input ../notes.md does not exist"}),
		fault.KindStale:           fault.Stale("01-scope", "input.md changed since it ran"),
		fault.KindNotRun:          fault.NotRun("01-scope"),
		fault.KindUnapproved:      fault.Unapproved("02-research", "01-scope", "awaiting review", true),
		fault.KindRunFailed:       fault.RunFailed("01-scope", "the model server did not answer"),
		fault.KindScriptFailed:    fault.ScriptFailed("stage 05-build: the script exited with status 2: make: *** [all] Error 2", "05-build", filepath.Join(Root, "pipeline", "05-build", "CONTEXT.md")),
		fault.KindLocked:          fault.Locked("another icm run is working in " + Root + " (pid 4242, icm run, since 10:04:05)"),
		fault.KindToolFailed:      fault.ToolFailed("stage 02-research: unable to start its tools: search-server: exec: \"searxng-mcp\": not found", "02-research", nil),
		fault.KindConfigInvalid:   fault.NoModelNamed("01-scope", config),
		fault.KindUntrusted:       fault.Untrusted("unable to run its stages: the workspace "+Root+" is not trusted: it names 1 tool server command", Root),
		fault.KindNotFound:        fault.NotFound(`no stage "09-x" in `+Root, "its stages are 01-scope, 02-research, 03-outline"),
		fault.KindInvalidRequest:  fault.InvalidRequest("icm.runStage needs a stage", "pass {workspace, stage}"),
		fault.KindUnknownCommand:  fault.UnknownCommand("icm.frobnicate", []string{"icm.status", "icm.runStage"}),
		fault.KindCancelled:       fault.From(fmt.Errorf("stage 01-scope: %w", context.Canceled)),
		fault.KindFailed:          fault.From(fmt.Errorf("unable to save the run: %w", &fs.PathError{Op: "write", Path: filepath.Join(Root, ".icm", "run.json"), Err: syscall.ENOSPC})),
		fault.KindInternal:        fault.Internal("stage 01-scope: the run ended without a summary", nil).In("01-scope"),
	}
}

// Kinds lists the kinds of Cases, sorted: every kind there is.
func Kinds() []fault.Kind {
	out := make([]fault.Kind, 0, len(Cases()))
	for k := range Cases() {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Actions lists every action id, sorted. Adding an action to package fault
// without it here fails fault's TestFaulttestHasEveryKind.
func Actions() []fault.ActionID {
	return []fault.ActionID{
		fault.Adopt, fault.Approve, fault.ApproveAnyway, fault.ChooseModel, fault.CompareModel, fault.InstallServer, fault.OpenFile, fault.PullModel,
		fault.Regenerate, fault.RunAnyway, fault.RunCheck, fault.RunStage, fault.SetServer, fault.ShowDiff, fault.StartServer, fault.TrustWorkspace, fault.TryDemo,
	}
}

// NoneInternal fails when fault.From met an error of no kind in this
// process (a bug: an error made without saying what it is), naming the
// first of them. The front ends' tests run it after all of theirs, which
// drive every request they offer, its error paths included.
func NoneInternal() error {
	n := fault.Unclassified.N.Load()
	if n == 0 {
		return nil
	}
	var seen []string
	fault.Unclassified.Seen.Range(func(k, _ any) bool {
		seen = append(seen, fmt.Sprint(k))
		return true
	})
	slices.Sort(seen)
	return fmt.Errorf("%d errors reached a front end without a kind (fault.From made them internal); "+
		"give each its kind where it is made:\n\t%s", n, strings.Join(seen, "\n\t"))
}
