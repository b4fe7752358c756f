// Package promptcount counts what a stage will send the model, before it
// runs: each first call as the server will see it (system and user text,
// the tool definitions, the chat template's own tokens), for a For each
// stage each item's first call and the whole stage. Every count says how
// it was made (tokens.Count): exact with the model's own tokenizer and
// template, from the server's /tokenize, calibrated from past runs, or
// estimated. The editor's hover, `icm probe` and the token table all count
// through Counter, so they agree with each other and with the window
// check before a call, which uses the same client counter.
package promptcount

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/readtool"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// Call describes a stage's first model call besides its context.
type Call struct {
	// Model is the model the stage runs on.
	Model string
	// Think is the stage's think setting (nil: the server's default).
	Think *bool
	// Tools are the tool definitions the stage offers, as the model sees
	// them (exposed names, descriptions, schemas).
	Tools []llm.Tool
	// Unlisted says which of the stage's tool servers could not be
	// listed, and why: their definitions are not in Tools, so a count
	// of the call leaves them out (see CallOf).
	Unlisted []string
}

// Request is the chat request of the first call on an assembled context:
// the system text, the user text, the tools (the call's, then icm's read
// tools when the context offers them). It is what the workflow sends as a
// stage's (or an item's) first call.
func Request(cx *assemble.Context, call Call) llm.ChatRequest {
	tools := call.Tools
	if defs := readtool.Definitions(cx); len(defs) > 0 {
		tools = append([]llm.Tool(nil), call.Tools...)
		for _, d := range defs {
			tools = append(tools, llm.Tool(d))
		}
	}
	return llm.ChatRequest{
		Stage: cx.Stage,
		Model: call.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: cx.System},
			{Role: llm.RoleUser, Content: cx.User},
		},
		Tools: tools,
		Think: call.Think,
	}
}

// Counter counts requests with a model client's own counter (exact for a
// local Ollama model, /tokenize for servers that have it) and applies a
// calibration to what can only be estimated.
type Counter struct {
	// Client counts; nil estimates every request.
	Client llm.Client
	// Calibration scales estimates of calls to its model (zero: none).
	Calibration Calibration
	// Memo, when set, keeps counts by request, so a caller that counts
	// every stage after each edit recounts only what changed.
	Memo *Memo
}

// Memo remembers exact and server counts by request, each for memoTTL.
// It is safe for concurrent use.
type Memo struct {
	mu sync.Mutex
	m  map[[32]byte]memoEntry
	// now is the clock (time.Now when nil).
	now func() time.Time
}

func (m *Memo) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

type memoEntry struct {
	n  tokens.Count
	at time.Time
}

const (
	// memoLimit bounds a memo; it starts over when full.
	memoLimit = 4096
	// memoTTL is how long a count stands: the request says nothing of
	// the model's files, and a pull of a new version (or a server that
	// stops serving the local files) must be seen within a minute, as
	// the client sees it.
	memoTTL = time.Minute
)

func (m *Memo) key(req llm.ChatRequest) [32]byte {
	data, _ := json.Marshal(struct {
		Model    string
		Messages []llm.Message
		Tools    []llm.Tool
		Think    *bool
	}{req.Model, req.Messages, req.Tools, req.Think})
	return sha256.Sum256(data)
}

// Count counts one request.
func (c *Counter) Count(ctx context.Context, req llm.ChatRequest) (tokens.Count, error) {
	if c.Memo == nil {
		return c.count(ctx, req)
	}
	k := c.Memo.key(req)
	c.Memo.mu.Lock()
	e, ok := c.Memo.m[k]
	c.Memo.mu.Unlock()
	if ok && c.Memo.clock().Sub(e.at) < memoTTL {
		return e.n, nil
	}
	n, err := c.count(ctx, req)
	if err == nil && n.Known() {
		c.Memo.mu.Lock()
		if c.Memo.m == nil || len(c.Memo.m) >= memoLimit {
			c.Memo.m = map[[32]byte]memoEntry{}
		}
		c.Memo.m[k] = memoEntry{n: n, at: c.Memo.clock()}
		c.Memo.mu.Unlock()
	}
	return n, err
}

func (c *Counter) count(ctx context.Context, req llm.ChatRequest) (tokens.Count, error) {
	var n tokens.Count
	var err error
	if c.Client != nil {
		n, err = llm.CountPrompt(ctx, c.Client, req)
	} else {
		n, err = llm.EstimatePrompt(req)
	}
	if err != nil {
		return tokens.Count{}, err
	}
	if n.Method == tokens.Estimated && baseName(c.Calibration.Model) == baseName(req.Model) {
		n = c.Calibration.Apply(req.Stage, n)
	}
	return n, nil
}

// Calibration is the ratio of the server's prompt counts to icm's
// estimates for one model over past runs: one ratio per stage that has
// run, and one over all the model's calls for stages that have not. The
// estimate's error depends on the text (prose, Markdown tables, paths,
// tool schemas in JSON: on the sample stages its ratio to a Qwen3 count
// ranges from 0.84 with tools to 0.96 on prose), so one ratio per model
// is only within about 6%; a stage's own ratio, from its first calls
// (what a count before the run predicts; later calls of a tool loop
// carry tool results, a different kind of text), is within 2% once it
// has run, since its next run sends much the same kind of text.
type Calibration struct {
	Model string
	// Ratio is the model's ratio over every call; 0 means none.
	Ratio float64
	// Runs and Calls are how many runs and model calls it is from.
	Runs, Calls int
	// Stages holds each stage's own ratio.
	Stages map[string]StageRatio
}

// StageRatio is one stage's calibration.
type StageRatio struct {
	Ratio       float64
	Runs, Calls int
}

// Apply scales an estimated count of a stage's call by the stage's ratio,
// else the model's.
func (c Calibration) Apply(stage string, n tokens.Count) tokens.Count {
	if n.Method != tokens.Estimated {
		return n
	}
	ratio, runs := c.Ratio, c.Runs
	if s, ok := c.Stages[stage]; ok && s.Ratio > 0 {
		ratio, runs = s.Ratio, s.Runs
	}
	if !(ratio > 0) || runs == 0 { // NaN too
		return n
	}
	ratio = clampRatio(ratio)
	return tokens.Count{Tokens: scale(n.Tokens, ratio), Method: tokens.Calibrated, Runs: runs, Ratio: ratio}
}

// Bounds of a calibration ratio. The estimate is within a factor of two
// of a real tokenizer on any text (the sample stages' ratios are 0.84 to
// 0.96); a history/ a workspace ships may claim anything, so a ratio is
// clamped to these before it scales a count.
const (
	MinRatio = 0.25
	MaxRatio = 4.0
)

// maxCount bounds a scaled count: far past any window, far from
// overflowing what is added to it.
const maxCount = 1 << 40

func clampRatio(r float64) float64 { return min(max(r, MinRatio), MaxRatio) }

// scale multiplies a count by ratio, saturating at maxCount, and keeps a
// count of a non-empty prompt at one token at least.
func scale(n int, ratio float64) int {
	if n <= 0 {
		return n
	}
	f := math.Round(float64(n) * ratio)
	switch {
	case f >= maxCount:
		return maxCount
	case f < 1:
		return 1
	}
	return int(f)
}

// Pair is one past model call: icm's heuristic estimate of its prompt and
// the server's count.
type Pair struct {
	Run, Stage, Model string
	Estimated, Server int
	// First says the call was the first of its loop (a stage's, or a For
	// each item's): the call a count before the run predicts.
	First bool
}

// MaxCalibrationRuns bounds how far back calibration looks: the newest
// runs say most about the model and the workspace as they are now.
const MaxCalibrationRuns = 20

// Calibrate computes the model's calibration from past calls, using the
// calls of at most MaxCalibrationRuns runs (the greatest run ids, which
// sort by the time a run started, when the pairs hold more). A stage's ratio is from its first calls
// when it has any, else from all its calls. Model names match with or
// without Ollama's ":latest".
func Calibrate(model string, pairs []Pair) Calibration {
	want := baseName(model)
	usable := func(p Pair) bool { return baseName(p.Model) == want && p.Estimated > 0 && p.Server > 0 }
	var runIDs []string
	seen := map[string]bool{}
	for _, p := range pairs {
		if usable(p) && !seen[p.Run] {
			seen[p.Run] = true
			runIDs = append(runIDs, p.Run)
		}
	}
	sort.Strings(runIDs)
	if len(runIDs) > MaxCalibrationRuns {
		runIDs = runIDs[len(runIDs)-MaxCalibrationRuns:]
	}
	kept := map[string]bool{}
	for _, id := range runIDs {
		kept[id] = true
	}
	// Sums in floating point: the counts are a trace's word, and integer
	// sums of claimed counts can overflow.
	type sums struct {
		est, real float64
		calls     int
		runs      map[string]bool
	}
	newSums := func() *sums { return &sums{runs: map[string]bool{}} }
	add := func(x *sums, p Pair) {
		x.est += float64(p.Estimated)
		x.real += float64(p.Server)
		x.calls++
		x.runs[p.Run] = true
	}
	all := newSums()
	stageAll, stageFirst := map[string]*sums{}, map[string]*sums{}
	for _, p := range pairs {
		if !usable(p) || !kept[p.Run] {
			continue
		}
		add(all, p)
		if stageAll[p.Stage] == nil {
			stageAll[p.Stage] = newSums()
		}
		add(stageAll[p.Stage], p)
		if p.First {
			if stageFirst[p.Stage] == nil {
				stageFirst[p.Stage] = newSums()
			}
			add(stageFirst[p.Stage], p)
		}
	}
	c := Calibration{Model: model, Runs: len(all.runs), Calls: all.calls, Stages: map[string]StageRatio{}}
	if all.est > 0 {
		c.Ratio = clampRatio(all.real / all.est)
	}
	for name, s := range stageAll {
		if f := stageFirst[name]; f != nil {
			s = f
		}
		c.Stages[name] = StageRatio{Ratio: clampRatio(s.real / s.est), Runs: len(s.runs), Calls: s.calls}
	}
	return c
}

// baseName is a model name without Ollama's default tag.
func baseName(model string) string { return strings.TrimSuffix(model, ":latest") }
