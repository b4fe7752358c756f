package stagetest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// sharedRepo is a git repository holding a shared folder and, below
// projects/, a workspace whose stage reads a shared file.
const sharedRepo = `
-- .git/HEAD --
ref: refs/heads/main
-- _core/conventions.md --
# Conventions
REAL conventions of the repository.
-- projects/ws/CLAUDE.md --
# Identity
-- projects/ws/pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 3 (reference): /_core/conventions.md
- Layer 4 (working): input.md

## Process
Write it.

## Outputs
- out.md -> output/
-- projects/ws/pipeline/01-a/input.md --
The input.
-- projects/ws/pipeline/01-a/tests/one.md --
# Case: one

## Inputs
### input.md
~~~markdown
A stand-in.
~~~

## Expect
- contains "Written"
`

// openCopy opens the workspace at rel below a repository written from
// archive and makes the test copy of its first stage's first case.
func openCopy(t *testing.T, archive, rel string) (src, cp *workspace.Workspace) {
	t.Helper()
	repo := wstest.Write(t, archive)
	src, err := workspace.Open(filepath.Join(repo, filepath.FromSlash(rel)), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	sel, err := Select(src, check.Run(src, check.Options{}), Filter{Dir: src.Root})
	if err != nil || len(sel) == 0 {
		t.Fatalf("no case: %v", err)
	}
	cp, top := makeCopy(t, src, sel[0])
	t.Cleanup(func() { cp.Close(); os.RemoveAll(top) })
	return src, cp
}

// TestCopyIsTheWorkspaceInItsRepository: a case's copy is made in a
// private (0700) temporary folder that stands for the repository: the
// workspace at the same place below it, with the shared files its stages
// read, so a shared input is the repository's own and never a file
// someone planted in the temporary folder's parent. Failed before: the
// copy went alone into $TMPDIR/icm-test-*, its shared inputs resolved
// against $TMPDIR and read the planted /_core/conventions.md (and the
// real one was never found).
func TestCopyIsTheWorkspaceInItsRepository(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if err := os.MkdirAll(filepath.Join(tmp, "_core"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "_core", "conventions.md"), []byte("PLANTED by another user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, cp := openCopy(t, sharedRepo, "projects/ws")
	if !strings.HasSuffix(cp.Root, string(filepath.Separator)+filepath.Join("projects", "ws")) {
		t.Errorf("the copy is at %s, not at the workspace's place in its repository", cp.Root)
	}
	top := strings.TrimSuffix(cp.Root, string(filepath.Separator)+filepath.Join("projects", "ws"))
	if info, err := os.Stat(top); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the copy's folder %s: %v, mode %v; want 0700", top, err, info.Mode().Perm())
	}
	st, err := cp.Stage("01-a")
	if err != nil {
		t.Fatal(err)
	}
	abs, _, err := cp.ResolveInput(st.Dir, "/_core/conventions.md")
	if err != nil {
		t.Fatalf("the shared input in the copy: %v", err)
	}
	data, err := cp.ReadInput(abs)
	if err != nil || !strings.Contains(string(data), "REAL conventions") {
		t.Errorf("the copy reads %s: %q, %v", abs, data, err)
	}
}

// TestCaseOfAStageReadingSharedInputsRuns: `icm test` runs a case of a
// stage that reads the repository's shared files, and the model gets
// them. Failed before: the copy had no repository around it, the shared
// input was missing, and every case of such a stage failed.
func TestCaseOfAStageReadingSharedInputsRuns(t *testing.T) {
	repo := wstest.Write(t, sharedRepo)
	ws, err := workspace.Open(filepath.Join(repo, "projects", "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "alpha", ContextLength: 8192}}})
	srv.On(ollamatest.LastUserContains("A stand-in.")).Reply(ollamatest.Text("Written.\n"))
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1), llm.WithModel("alpha"))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(ws, check.Run(ws, check.Options{}), Filter{Dir: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	rep := New(ws, Backend{Client: client, Permit: allowAll}, Options{Models: []string{"alpha"}}).Run(context.Background(), sel)
	if !rep.Passed || len(rep.Results) != 1 {
		t.Fatalf("passed %v: %+v", rep.Passed, rep.Results)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[0].Content, "REAL conventions") {
		t.Errorf("the model did not get the shared file: %d requests", len(reqs))
	}
}

// TestCopyKeepsLinksInsideAndFilesAsTheyRead: a link that stays inside
// the workspace is a link in the copy (check and run follow it there as
// here), one that leads out is left out; a sparse file over the read cap
// is a hole of the same size (the copy refuses it as the workspace does,
// for its size) and a file under the cap keeps its holes and its mode.
// Failed before: links were left out, so a stage reading through one
// failed in its copy, and a 64 MB sparse file was written out whole.
func TestCopyKeepsLinksInsideAndFilesAsTheyRead(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	archive := sharedRepo + "-- projects/ws/_config/audience.md --\nBeginners.\n-- projects/ws/pipeline/01-a/run.sh --\n#!/bin/sh\n"
	repo := wstest.Write(t, archive)
	stage := filepath.Join(repo, "projects", "ws", "pipeline", "01-a")
	for name, target := range map[string]string{"audience.md": "../../_config/audience.md", "out-link.md": outside} {
		if err := os.Symlink(target, filepath.Join(stage, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(stage, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	sparse := func(name string, size int64) {
		f, err := os.Create(filepath.Join(stage, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte("end"), size-3); err != nil {
			t.Fatal(err)
		}
	}
	sparse("big.bin", 64<<20)
	sparse("small.bin", 4<<20)
	src, err := workspace.Open(filepath.Join(repo, "projects", "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sel, err := Select(src, check.Run(src, check.Options{}), Filter{Dir: src.Root})
	if err != nil || len(sel) == 0 {
		t.Fatal(err)
	}
	cp, top := makeCopy(t, src, sel[0])
	defer os.RemoveAll(top)
	defer cp.Close()
	at := func(name string) string { return filepath.Join(cp.Root, "pipeline", "01-a", name) }
	if info, err := os.Lstat(at("audience.md")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link inside is not a link in the copy: %v", err)
	} else if data, err := cp.Disk.ReadFile(at("audience.md")); err != nil || string(data) != "Beginners.\n" {
		t.Errorf("the link inside reads %q, %v", data, err)
	}
	if _, err := os.Lstat(at("out-link.md")); err == nil {
		t.Error("the link out is in the copy")
	}
	for name, size := range map[string]int64{"big.bin": 64 << 20, "small.bin": 4 << 20} {
		info, err := os.Stat(at(name))
		if err != nil || info.Size() != size {
			t.Errorf("%s in the copy: %v, %d bytes", name, err, info.Size())
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Blocks*512 > 1<<20 {
			t.Errorf("%s takes %d KB in the copy", name, st.Blocks/2)
		}
	}
	if data, err := os.ReadFile(at("small.bin")); err != nil || !strings.HasSuffix(string(data), "end") {
		t.Errorf("small.bin lost its data: %v", err)
	}
	if info, err := os.Stat(at("run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh lost its mode: %v", info.Mode())
	}
}
