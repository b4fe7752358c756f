// Package report is the plain data icm's engine produces and its front
// ends render: a run's events and what it did (Event, Summary), a stage's
// gate summary (Gate: made once, rendered by every face as its Lines), the runs
// its traces tell (RunSummary, RunNode, Exchange), a stage test run
// (TestReport) and the listings a front end shows (ToolInfo,
// PullProgress). Each type is defined here once: package workflow emits
// Event and reads RunSummary back from history/*.jsonl, package agent
// fills ModelEvent and ToolEvent for the calls it makes, package
// stagetest returns TestReport, package tools lists ToolInfo, and the
// session hands them on as they are. The CLI, the language server
// and the workspace MCP server import this package by name; none of them
// reaches a type of the engine's packages, and nothing re-exports these
// types under another name (TestNothingTheFrontEndsImportPassesOnAnEngineType,
// in package session).
//
// The types hold values, not work: no type here calls a model, starts a
// tool or reads a file. Where the engine's own type is a working one (the
// chat message package llm sends, the progress its model client reports),
// this package keeps a record of it (Message, PullProgress) that is
// filled once, where the call is made (package agent; the session for a
// download). Their JSON keys are the trace's and the saved test report's:
// a trace written by an earlier icm reads the same.
//
// It imports only the packages below the engine (state, testcase,
// contract, workspace): never workflow, stagetest, agent, llm, tools or
// the session.
package report
