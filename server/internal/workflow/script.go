package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// maxScriptOutput caps what a script may print into the trace.
const maxScriptOutput = 64 << 10

// script runs a ## Script stage: `sh -c` in the stage folder with
// ICM_WORKSPACE, ICM_STAGE and ICM_OUTPUT set, ended with every process
// it started when the timeout passes or the run is cancelled
// (scriptCommand).
//
// ICM_OUTPUT is a staging folder, not output/: what the script writes is
// moved into output/ file by file with atomic renames only once it has
// succeeded, so a script killed halfway (or one that fails) never leaves a
// half-written output behind.
func (r *run) script(ctx context.Context) error {
	disk := r.e.ws.Disk
	staging := filepath.Join(r.st.Dir, state.StateDir, "staging")
	if err := disk.RemoveAll(staging); err != nil {
		return fmt.Errorf("unable to clear %s: %w", staging, err)
	}
	if err := disk.MkdirAll(staging); err != nil {
		return fmt.Errorf("unable to create %s: %w", staging, err)
	}
	defer disk.RemoveAll(staging)
	if err := r.runScript(ctx, staging); err != nil {
		return err
	}
	r.touched = true
	return promote(disk, staging, filepath.Join(r.st.Dir, workspace.OutputDir))
}

// promote moves every file under staging to the same place under out,
// each with a synced atomic rename, then syncs the folders it touched.
// Both folders are in the workspace and every step goes through its Root.
// Only regular files count as outputs: a link or a named pipe the script
// left is an error, never moved into output/.
func promote(disk *workspace.Root, staging, out string) error {
	from, _ := disk.Rel(staging)
	dirs := map[string]bool{}
	err := disk.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, from+"/")
		if !d.Type().IsRegular() {
			return fault.Failed(fmt.Sprintf("the script left %s in $ICM_OUTPUT, which is not a regular file (a link or a special file); outputs must be regular files", rel),
				"have the script write regular files into $ICM_OUTPUT", nil)
		}
		dst := filepath.Join(out, filepath.FromSlash(rel))
		if err := disk.MkdirAll(filepath.Dir(dst)); err != nil {
			return err
		}
		if f, _, err := disk.Open(p); err == nil {
			serr := f.Sync()
			f.Close()
			if serr != nil {
				return serr
			}
		}
		if err := disk.Rename(p, dst); err != nil {
			return err
		}
		dirs[filepath.Dir(dst)] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("unable to move the script's outputs into %s: %w", out, err)
	}
	for d := range dirs {
		_ = disk.SyncDir(d)
	}
	return nil
}

// runScript runs the command with ICM_OUTPUT set to outDir.
func (r *run) runScript(ctx context.Context, outDir string) error {
	e, st := r.e, r.st
	timeout := e.ws.Config.Workflow.ScriptTimeout.Duration
	if s := r.c.Script.TimeoutSeconds; s > 0 {
		timeout = time.Duration(s * float64(time.Second))
	}
	if timeout <= 0 {
		timeout = time.Minute
	}
	if err := e.ws.Disk.MkdirAll(filepath.Join(st.Dir, workspace.OutputDir)); err != nil {
		return fmt.Errorf("unable to create %s: %w", filepath.Join(st.Dir, workspace.OutputDir), err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := scriptCommand(ctx, e.opts.Permit, st.Dir, r.c.Script.Command)
	cmd.Env = append(os.Environ(), "ICM_WORKSPACE="+e.ws.Root, "ICM_STAGE="+st.Name, "ICM_OUTPUT="+outDir, "ICM_RUN_ID="+e.runID)
	cmd.Env = append(cmd.Env, r.scriptEnv()...)
	var out bytes.Buffer
	w := &limitWriter{buf: &out, max: maxScriptOutput}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	err := cmd.Run()
	// Whatever happened, leave no process of the group behind.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	text := strings.TrimSpace(out.String())
	e.emit(report.Event{Kind: report.EventScript, Stage: st.Name, Message: tail(text, 2000), Duration: time.Since(start)})
	var exit *exec.ExitError
	var refused *act.Refusal
	switch {
	case errors.As(err, &refused):
		// Not started: the refusal's own fault (untrusted, most often) says why.
		return fault.From(fmt.Errorf("stage %s: %w", st.Name, err))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fault.ScriptFailed(fmt.Sprintf("stage %s: the script did not finish within %s and was stopped", st.Name, human.Duration(timeout)), st.Name, st.Contract)
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &exit):
		return fault.ScriptFailed(fmt.Sprintf("stage %s: the script exited with status %d: %s", st.Name, exit.ExitCode(), tail(text, 500)), st.Name, st.Contract)
	case err != nil:
		return fault.ScriptFailed(fmt.Sprintf("stage %s: unable to run the script: %v", st.Name, err), st.Name, st.Contract).Because(err)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

type limitWriter struct {
	buf *bytes.Buffer
	max int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			p2 := p[:room]
			l.buf.Write(p2)
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}
