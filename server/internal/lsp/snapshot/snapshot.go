package snapshot

import (
	"context"
	"path/filepath"
	"sort"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Snapshot is one analysis of a workspace: the editor's buffers at one
// moment laid over the disk, the checks `icm check` runs over them, each
// stage's first calls counted, and the model's window as known then,
// over the opening (workspace and session) it was made with. It never
// changes once made; a change makes the next one. It holds its opening
// while it is the latest and for each holder Snapshot handed it to.
type Snapshot struct {
	o      *Opening
	view   *workspace.Workspace // o's, with Files the buffers over the disk
	docs   *document.Snapshot
	report *check.Report
	window int
	// counts are each stage's first calls counted as the run sends them.
	counts map[string]*promptcount.Stage
}

// FileFindings are what one analysis found in one file: every stage
// contract, case and config.toml is listed, with no findings when clean,
// so a fixed problem is cleared.
type FileFindings struct {
	Path string
	// Doc is the editor's buffer the findings were made on; nil when the
	// file is not open (its text is the disk's).
	Doc *document.Doc
	// Mapper maps the findings' byte ranges in the text they were made on.
	Mapper   *document.Mapper
	Findings []contract.Finding
}

// analyze runs the checks over the current buffers and publishes the
// findings of every file they concern.
func (w *Workspace) analyze() {
	// Read the request count before the snapshot: every change that asked
	// for analysis up to here is in the buffers the snapshot holds.
	w.mu.Lock()
	epoch := w.want
	w.mu.Unlock()
	docs := w.set.docs.Snapshot()
	o, err := w.Acquire()
	if err != nil {
		w.set.opts.Log.Warn("unable to open workspace", "root", w.root, "err", err)
		w.finish(epoch, &Snapshot{docs: docs})
		return
	}
	ws, sess := o.ws, o.sess
	w.ensureWindow(o) // started first, so a hover right after the diagnostics can wait for it
	view := *ws
	view.Files = docs.Over(ws.Disk)
	rep := check.Run(&view, sess.CheckOptions(w.checkFacts(sess)))
	// The snapshot keeps the hold Acquire took.
	snap := &Snapshot{o: o, view: &view, docs: docs, report: rep, window: w.windowSize()}
	w.set.opts.Publish(w.ctx, w.root, snap.findings())
	// Counted after the diagnostics are out (an exact count of a stage
	// takes tens of milliseconds; the memo keeps unchanged stages').
	snap.counts = w.countStages(w.ctx, sess, &view, rep)
	w.finish(epoch, snap)
	w.set.opts.Analyzed(w)
}

func (w *Workspace) finish(epoch uint64, snap *Snapshot) {
	w.mu.Lock()
	prev := w.latest
	w.latest, w.have, w.analyzed = snap, epoch, true
	close(w.ready)
	w.ready = make(chan struct{})
	w.mu.Unlock()
	prev.Release()
}

// Snapshot returns a snapshot that includes every change made to the
// workspace's buffers so far, waiting (within ctx) for the analysis
// that makes it when needed. The caller holds it and must release it.
func (w *Workspace) Snapshot(ctx context.Context) (*Snapshot, error) {
	for {
		w.mu.Lock()
		if w.analyzed && w.have >= w.want && w.latest.report != nil {
			snap := w.latest
			snap.hold()
			w.mu.Unlock()
			return snap, nil
		}
		if w.analyzed && w.have >= w.want {
			err := w.openErr
			w.mu.Unlock()
			return nil, err
		}
		ready := w.ready
		w.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-w.ctx.Done():
			return nil, w.ctx.Err()
		}
	}
}

// findings groups the report's findings by file.
func (snap *Snapshot) findings() map[string]FileFindings {
	out := map[string]FileFindings{}
	add := func(file string) *FileFindings {
		ff, ok := out[file]
		if !ok {
			ff = FileFindings{Path: file}
			if d, ok := snap.docs.Doc(file); ok {
				ff.Doc = d
			}
		}
		out[file] = ff
		return &ff
	}
	for _, sr := range snap.report.Stages {
		if sr.Contract != nil {
			add(sr.Stage.Contract)
		}
		// Cases too: a case that is fixed gets its empty list.
		for _, c := range sr.Cases {
			add(c.File)
		}
	}
	// config.toml too, so a fixed problem there is cleared.
	if cfg := filepath.Join(snap.view.Root, config.FileName); snap.exists(cfg) {
		add(cfg)
	}
	for _, f := range snap.report.Findings {
		file := f.File
		if info, err := snap.view.Files.Stat(file); err == nil && info.IsDir() {
			// A stage folder without a contract: show it on the routing file.
			f.Message = filepath.Base(file) + ": " + f.Message
			file = filepath.Join(snap.view.Root, workspace.RoutingFile)
			f.Range = document.Range{}
		}
		ff := add(file)
		if ff.Mapper == nil {
			ff.Mapper = snap.mapper(file)
		}
		ff.Findings = append(ff.Findings, f)
		out[file] = *ff
	}
	return out
}

// exists reports whether the snapshot sees file (a buffer or on disk).
func (snap *Snapshot) exists(file string) bool {
	_, err := snap.view.Files.Stat(file)
	return err == nil
}

// mapper returns the mapper of a file as the snapshot saw it.
func (snap *Snapshot) mapper(file string) *document.Mapper {
	if d, ok := snap.docs.Doc(file); ok {
		return d.Mapper()
	}
	for _, sr := range snap.report.Stages {
		if sr.Stage.Contract == file && sr.Source != nil {
			return document.NewMapper(sr.Source)
		}
	}
	src, err := snap.view.Disk.ReadFile(file)
	if err != nil {
		return document.NewMapper(nil)
	}
	return document.NewMapper(src)
}

// stageOfContract returns the stage report whose contract is file.
func (snap *Snapshot) stageOfContract(file string) *check.StageReport {
	for _, sr := range snap.report.Stages {
		if sr.Stage.Contract == file {
			return sr
		}
	}
	return nil
}

// findingsAt returns the findings about file whose range touches [start, end].
func (snap *Snapshot) findingsAt(file string, start, end int) []contract.Finding {
	var out []contract.Finding
	for _, f := range snap.report.FindingsFor(file) {
		if f.Range.Start <= end && start <= f.Range.End {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity < out[j].Severity })
	return out
}

// hold adds a holder of the snapshot's opening; Release must follow.
func (snap *Snapshot) hold() {
	if snap != nil {
		snap.o.hold()
	}
}

// Release lets go of a hold on the snapshot (nil-safe, for a snapshot a
// request did not get).
func (snap *Snapshot) Release() {
	if snap != nil {
		snap.o.Release()
	}
}
