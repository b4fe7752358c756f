// Package testcase reads the test cases kept next to a stage: the files
// under a stage folder's tests/ (one case per .md file, or per subfolder
// holding a CASE.md). A case is a small Markdown document that names the
// inputs it replaces with stand-ins and what the stage's output must show:
// any Verify check, text and pattern assertions, and rubric lines a model
// judges. Parse keeps the byte range of everything it reads, so findings
// point at a line and column; Check adds what needs the workspace (paths
// that do not exist, stand-ins for files the stage never reads). It knows
// nothing about running a case: package stagetest does that.
package testcase
