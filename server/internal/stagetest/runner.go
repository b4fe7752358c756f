package stagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Runner runs the cases of one workspace.
type Runner struct {
	ws      *workspace.Workspace
	backend Backend
	opts    Options
	cache   *cacheStore

	emitMu sync.Mutex
}

// New prepares runs of ws's cases.
func New(ws *workspace.Workspace, backend Backend, opts Options) *Runner {
	opts = opts.withDefaults()
	return &Runner{ws: ws, backend: backend, opts: opts, cache: &cacheStore{disk: ws.Disk, dir: filepath.Join(ws.Root, CacheDir)}}
}

// jobs lays out the matrix: every case, for every model, every repeat.
func (r *Runner) jobs(sel []*report.TestCase) []job {
	var out []job
	for _, s := range sel {
		models := r.opts.Models
		if len(models) == 0 {
			models = []string{""}
		}
		for _, m := range models {
			label := m
			if label == "" {
				label = state.ResolveSettings(r.ws.Config.Model, s.Contract.Model, "").Model()
			}
			for i := 1; i <= r.opts.Repeat; i++ {
				out = append(out, job{sel: s, model: m, label: label, repeat: i, seed: r.opts.Seed + i - 1})
			}
		}
	}
	return out
}

// Run runs every job of the selected cases, Options.Parallel at a time,
// and returns the report (also when ctx is cancelled part way: the jobs
// that did not run are marked cancelled). It does not save the report.
func (r *Runner) Run(ctx context.Context, sel []*report.TestCase) *report.TestReport {
	start := r.opts.Now()
	rep := &report.TestReport{Version: ReportVersion, RunID: newRunID(start), Workspace: r.ws.Root, Started: start,
		Repeat: r.opts.Repeat, Seed: r.opts.Seed, Parallel: r.opts.Parallel, Judge: r.opts.Judge, Cache: r.opts.Cache}
	for _, s := range sel {
		rep.Cases = append(rep.Cases, caseInfo(r.ws, s))
	}
	jobs := r.jobs(sel)
	rep.Results = make([]*report.TestResult, len(jobs))
	work := make(chan int)
	// The first job of each model goes alone until the server has read
	// its prompt: the jobs of a stage share most of it (the repeats all
	// of it), and a server that has it computed reuses it for the rest
	// (docs/prefill.md).
	warm := r.opts.Parallel > 1 && r.ws.Config.Workflow.Warm()
	warmed := map[string]chan struct{}{}
	ready := make([]func(), len(jobs))
	for i, j := range jobs {
		if _, ok := warmed[j.label]; warm && !ok {
			ch := make(chan struct{})
			warmed[j.label] = ch
			ready[i] = sync.OnceFunc(func() { close(ch) })
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < min(r.opts.Parallel, max(len(jobs), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				j := jobs[i]
				r.emit(report.TestEvent{Kind: report.TestJobStart, Index: i + 1, Total: len(jobs), Case: j.sel.Case.ID, Model: j.label, Repeat: j.repeat})
				res := r.runJob(ctx, j, ready[i])
				rep.Results[i] = res
				r.emit(report.TestEvent{Kind: report.TestJobEnd, Index: i + 1, Total: len(jobs), Case: j.sel.Case.ID, Model: j.label, Repeat: j.repeat, Result: res})
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		select {
		case work <- i:
		case <-ctx.Done():
		}
		if ready[i] != nil {
			select {
			case <-warmed[jobs[i].label]:
			case <-ctx.Done():
			}
		}
	}
	close(work)
	wg.Wait()
	for i, res := range rep.Results {
		if res == nil {
			j := jobs[i]
			rep.Results[i] = &report.TestResult{Case: j.sel.Case.ID, Stage: j.sel.Stage.Name, Model: j.label, Repeat: j.repeat, Seed: j.seed,
				Status: report.TestCancelled, Error: "cancelled before it ran", Checks: []report.TestCheck{}}
		}
	}
	rep.Finished = r.opts.Now()
	rep.Duration = rep.Finished.Sub(start)
	rep.Complete = ctx.Err() == nil
	summarize(rep)
	return rep
}

// newRunID names a test run by its start, to the millisecond, so saved
// runs sort in the order they ran even seconds apart: 20261201-143005.123-3fa2c1.
func newRunID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405.000") + "-" + hex.EncodeToString(b[:])
}

func (r *Runner) emit(ev report.TestEvent) {
	if r.opts.Progress == nil {
		return
	}
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.opts.Progress(ev)
}
