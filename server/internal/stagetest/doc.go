// Package stagetest runs stage test cases (package testcase): each case,
// for each model and repeat, in its own copy of the workspace, through
// the same engine as `icm run` (tools, For each, Verify), with a fixed
// seed per repeat. It checks the case's expectations on what the stage
// wrote (Verify checks and text assertions in code; rubric lines through
// the critic, whose pass is decided in code), gathers the results into a
// case × model matrix, saves them under history/tests/, compares them with
// an earlier run, writes JUnit XML, and can replay identical model
// requests from a cache. The real workspace is only read, never written,
// but for the results file under history/tests/ (and the cache there).
// What it selects and returns is package report's data (report.TestCase,
// report.TestReport, report.TestEvent), which the front ends render.
//
// What it needs to talk to models and tools comes in a Backend, built by
// the application layer; this package builds no model client of its own.
package stagetest
