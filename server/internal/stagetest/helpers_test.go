package stagetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// allowAll permits what every copy names, as a trusted workspace's
// permit does.
func allowAll(*workspace.Workspace) act.Permit {
	return act.PermitFunc(func(act.Action) error { return nil })
}

// small is a workspace with one model stage and two cases: one kept as a
// file with an inline stand-in, one as a folder with its stand-in beside it.
const small = `
-- CLAUDE.md --
# Test workspace

You write course objectives.
-- config.toml --
[model]
name = "alpha"
temperature = 0.3
-- pipeline/01-idea/CONTEXT.md --
# Stage: 01-idea

## Inputs
- Layer 4 (working): input.md

## Tools
none

## Process
Write three learning objectives for the course idea, as a numbered list.

## Outputs
- objectives.md -> output/

## Verify
- non-empty
-- pipeline/01-idea/input.md --
# Idea
The workspace's own idea: Rust.
-- pipeline/01-idea/tests/go.md --
# Case: a Go course

## Inputs
### input.md
~~~markdown
# Idea
Learn Go.
~~~

## Expect
- contains "Go"
- not-contains "TODO"
- rubric >= 7: every objective starts with a verb
-- pipeline/01-idea/tests/python/CASE.md --
# Case: a Python course

## Inputs
- input.md <- idea.md

## Expect
- matches ` + "`(?m)^1\\. `" + `
- sections 0..0
-- pipeline/01-idea/tests/python/idea.md --
# Idea
Learn Python.
`

// scripted is the model server for small: alpha writes good objectives,
// beta forgets the language in the Go case; the judge scores 8.
func scripted(t *testing.T) (*ollamatest.Server, llm.Client) {
	t.Helper()
	caps := []string{"completion"}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: "alpha", ContextLength: 8192, Family: "qwen3", Capabilities: caps},
		{Name: "beta", ContextLength: 8192, Family: "llama", Capabilities: caps},
	}})
	srv.On(ollamatest.HasFormat()).Reply(ollamatest.JSON(map[string]any{"score": 8, "reason": "Each line starts with a verb."}))
	srv.On(ollamatest.And(ollamatest.ModelIs("beta"), ollamatest.LastUserContains("Learn Go"))).Reply(ollamatest.Text("1. Write programs.\n2. Test them.\n"))
	srv.On(ollamatest.LastUserContains("Learn Go")).Reply(ollamatest.Text("1. Write Go programs.\n2. Test Go code.\n3. Ship a Go binary.\n"))
	srv.On(ollamatest.LastUserContains("Learn Python")).Reply(ollamatest.Text("1. Write Python scripts.\n2. Package them.\n"))
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func openSmall(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(wstest.Write(t, small), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// runCases selects every case of ws (or those args name) and runs them.
func runCases(t *testing.T, ws *workspace.Workspace, client llm.Client, opts Options, args ...string) *report.TestReport {
	t.Helper()
	sel, err := Select(ws, check.Run(ws, check.Options{}), Filter{Args: args, Dir: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel) == 0 {
		t.Fatal("no case selected")
	}
	return New(ws, Backend{Client: client, Permit: allowAll}, opts).Run(context.Background(), sel)
}

// hashTree hashes every file and folder under root (path, mode and
// content), leaving out what skip says.
func hashTree(t *testing.T, root string, skip func(rel string) bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := sha256.New()
		h.Write([]byte(info.Mode().String()))
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		out[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "removed "+k)
		} else if v != w {
			out = append(out, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "added "+k)
		}
	}
	sort.Strings(out)
	return out
}

func result(t *testing.T, rep *report.TestReport, caseID, model string, repeat int) *report.TestResult {
	t.Helper()
	for _, r := range rep.Results {
		if r.Case == caseID && r.Model == model && r.Repeat == repeat {
			return r
		}
	}
	t.Fatalf("no result for %s × %s #%d", caseID, model, repeat)
	return nil
}

func seedsOf(srv *ollamatest.Server, contains string) []int {
	var out []int
	for _, r := range srv.ChatRequests() {
		if len(r.Format) > 0 || !strings.Contains(r.LastUser(), contains) {
			continue
		}
		if s, ok := r.IntOption("seed"); ok {
			out = append(out, s)
		}
	}
	sort.Ints(out)
	return out
}
