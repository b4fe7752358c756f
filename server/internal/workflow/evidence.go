package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// EvidenceFile keeps, inside a stage's .icm/, the evidence last worked
// out for its outputs, by evidence.Key: an output nobody changed, against
// the same sources, costs a lookup, in any process.
const EvidenceFile = "evidence.json"

// maxKeptEvidence bounds the results EvidenceFile keeps (the newest).
const maxKeptEvidence = 8

// evidenceKinds are the outputs whose evidence is worked out: text a
// person reads. A JSON or code output is judged by its checks.
var evidenceKinds = map[string]bool{".md": true, ".markdown": true, ".txt": true, "": true}

// EvidenceOptions change how Evidence works.
type EvidenceOptions struct {
	// Cache, when set, keeps results within the process too.
	Cache *evidence.Cache
	// ReadOnly keeps Evidence from writing its cache beside the record (a
	// workspace its person has not trusted is only read).
	ReadOnly bool
	// Embedder, when set, adds the embedding model's semantic score.
	Embedder evidence.Embedder
}

// Evidence works out what each Markdown output of a stage rests on, as
// the output is on disk now: the stage's inputs as its last run read them
// and the texts its tools returned (state.ToolResults). It never fails
// for what it could not do (that is said in each result); it returns an
// error only when the stage cannot be read or never ran.
func Evidence(ctx context.Context, ws *workspace.Workspace, name string, opts EvidenceOptions) ([]*evidence.Result, error) {
	st, err := ws.Stage(name)
	if err != nil {
		return nil, err
	}
	rec, err := state.ReadRecord(ws.Disk, st.Dir)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fault.NotRun(st.Name)
	}
	src, err := ws.Files.ReadFile(st.Contract)
	if err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", st.ContractRel(), err)
	}
	c := contract.ParseWith(st.Contract, src, contract.Options{Vars: ws.Vars})
	outs := state.OutputPaths(ws, st, c)
	sources, read := evidenceSources(ws, st, rec, outs)
	kept := readKeptEvidence(ws, st)
	var results []*evidence.Result
	changed := false
	for _, rel := range outs {
		if !evidenceKinds[strings.ToLower(path.Ext(rel))] {
			continue
		}
		text, err := ws.Disk.ReadFileMax(rel, evidence.DefaultMaxOutputBytes)
		if err != nil {
			continue // a missing output has nothing to show
		}
		in := evidence.Input{Path: rel, Text: text, Sources: sources, ReadURLs: read}
		opt := evidence.Options{Embedder: opts.Embedder}
		if t := ws.Config.Evidence.EmbedThreshold; t > 0 {
			opt.SemanticThreshold = t
		}
		key := evidence.Key(in, opt)
		if res := kept.find(key); res != nil {
			res.Cached = true
			results = append(results, res)
			continue
		}
		var res *evidence.Result
		if opts.Cache != nil {
			res = opts.Cache.Compute(ctx, in, opt)
		} else {
			res = evidence.Compute(ctx, in, opt)
		}
		// A result whose embedding model failed is not kept: the next
		// ask may reach it.
		if embedFailed := opts.Embedder != nil && res.Method == "lexical"; !res.Partial && !embedFailed {
			kept.add(key, res)
			changed = true
		}
		results = append(results, res)
	}
	if changed && !opts.ReadOnly {
		// A cache that cannot be written costs the next ask a computation.
		_ = kept.write(ws, st)
	}
	return results, nil
}

// evidenceSources are what a stage's outputs may rest on: the files its
// last run read (not its own contract, not its outputs) and what its
// tools returned; and the URLs the run's tools returned or read.
func evidenceSources(ws *workspace.Workspace, st *workspace.Stage, rec *state.Record, outs []string) ([]evidence.Source, []string) {
	skip := map[string]bool{st.ContractRel(): true}
	for _, o := range outs {
		skip[o] = true
	}
	files := map[string]bool{}
	for rel, h := range rec.Inputs {
		if h != state.Missing && !skip[rel] {
			files[rel] = true
		}
	}
	results, _ := state.ReadToolResults(ws.Disk, st.Dir, rec.RunID)
	if results == nil {
		// A record from before icm kept tool results: what the read
		// tool read is still on disk.
		for rel := range rec.Reads {
			if !strings.HasPrefix(rel, "/") && !skip[rel] {
				files[rel] = true
			}
		}
	}
	names := make([]string, 0, len(files))
	for rel := range files {
		names = append(names, rel)
	}
	sort.Strings(names)
	var out []evidence.Source
	for _, rel := range names {
		text, err := ws.Disk.ReadFileMax(filepath.FromSlash(rel), evidence.DefaultMaxSourceBytes)
		if err == nil {
			out = append(out, evidence.Source{Kind: evidence.SourceInput, Name: rel, Text: text})
		}
	}
	if results != nil {
		for _, r := range results.Results {
			out = append(out, toolSource(r))
		}
	}
	var read []string
	if rec.Sources != nil {
		read = rec.Sources.FromTools
	}
	return out, read
}

// toolSource is one tool result as a source: named by the page it
// fetched or the file it read when its arguments say one, else by the
// tool.
func toolSource(r state.ToolResult) evidence.Source {
	s := evidence.Source{Kind: evidence.SourceTool, Name: r.Name, Tool: r.Name, CallID: toolCallID(r.Index, r.Call), Args: r.Args, Text: []byte(r.Text)}
	var args map[string]any
	if json.Unmarshal([]byte(r.Args), &args) == nil {
		if u, ok := args["url"].(string); ok && u != "" {
			s.Name, s.URL = u, u
		} else if p, ok := args["path"].(string); ok && p != "" {
			s.Name = p
		}
	}
	return s
}

// toolCallID names a tool call of a run's stage as evidence's passages
// do: "INDEX/CALL", the For each item's place (0 for none) and the call's
// number within it, as the trace numbers them.
func toolCallID(index, call int) string {
	return strconv.Itoa(index) + "/" + strconv.Itoa(call)
}

// keptEvidence is what EvidenceFile holds.
type keptEvidence struct {
	Version int         `json:"version"`
	Entries []keptEntry `json:"entries"`
}

type keptEntry struct {
	Key    string           `json:"key"`
	Result *evidence.Result `json:"result"`
}

func readKeptEvidence(ws *workspace.Workspace, st *workspace.Stage) *keptEvidence {
	k := &keptEvidence{}
	data, err := ws.Disk.ReadFileMax(filepath.Join(st.Dir, state.StateDir, EvidenceFile), 64<<20)
	if err != nil {
		return k
	}
	if json.Unmarshal(data, k) != nil || k.Version != state.FormatVersion {
		// An unreadable cache is only a cache: it is computed again.
		return &keptEvidence{}
	}
	return k
}

func (k *keptEvidence) find(key string) *evidence.Result {
	for _, e := range k.Entries {
		if e.Key == key && e.Result != nil {
			res := *e.Result
			return &res
		}
	}
	return nil
}

func (k *keptEvidence) add(key string, res *evidence.Result) {
	k.Entries = append([]keptEntry{{Key: key, Result: res}}, k.Entries...)
	if len(k.Entries) > maxKeptEvidence {
		k.Entries = k.Entries[:maxKeptEvidence]
	}
}

func (k *keptEvidence) write(ws *workspace.Workspace, st *workspace.Stage) error {
	k.Version = state.FormatVersion
	data, err := json.Marshal(k)
	if err != nil {
		return err
	}
	err = ws.Disk.WriteFile(filepath.Join(st.Dir, state.StateDir, EvidenceFile), data, 0o644)
	if errors.Is(err, fs.ErrPermission) {
		return nil
	}
	return err
}

// EvidenceLine says in one line what a stage's outputs rest on: the one
// output's summary, or each output's after its name.
func EvidenceLine(results []*evidence.Result) string {
	switch len(results) {
	case 0:
		return ""
	case 1:
		return results[0].Summary.Text
	}
	parts := make([]string, 0, len(results))
	for _, r := range results {
		parts = append(parts, path.Base(r.Path)+": "+r.Summary.Text)
	}
	return strings.Join(parts, "; ")
}

// evidence works out what the outputs a model stage just wrote rest on,
// for the gate, and reports whether it did. It informs, never decides:
// whatever goes wrong leaves the line empty, and evidence.DefaultMaxTime
// bounds it (and DefaultMaxEmbedTime the embedding model, when there is one).
func (r *run) evidence(ctx context.Context) bool {
	if r.c.Script != nil {
		return false
	}
	bound := evidence.DefaultMaxTime
	if r.e.opts.Embedder != nil {
		bound += evidence.DefaultMaxEmbedTime
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	res, err := Evidence(ctx, r.e.ws, r.st.Name, EvidenceOptions{Embedder: r.e.opts.Embedder})
	if err != nil || !anyClaim(res) {
		// Nothing to say (no Markdown output, no claim in it): no line.
		return false
	}
	r.res.Evidence = EvidenceLine(res)
	clean := true
	for _, x := range res {
		sum := x.Summary
		clean = clean && !x.Partial && sum.Unsupported+sum.Unchecked+sum.URLsNeverRead+sum.NumbersNotFound+sum.DatesNotFound+sum.QuotesNotFound == 0
	}
	r.evidenceClean = clean
	return true
}

// anyClaim reports whether any result has a unit to check or a mark.
func anyClaim(res []*evidence.Result) bool {
	for _, x := range res {
		sum := x.Summary
		if sum.Units+sum.URLsNeverRead+sum.NumbersNotFound+sum.DatesNotFound+sum.QuotesNotFound > 0 {
			return true
		}
	}
	return false
}
