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
	"sync"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/llm"
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
// the system text, the user text, the tools. It is what the workflow
// sends as a stage's (or an item's) first call.
func Request(cx *assemble.Context, call Call) llm.ChatRequest {
	return llm.ChatRequest{
		Stage: cx.Stage,
		Model: call.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: cx.System},
			{Role: llm.RoleUser, Content: cx.User},
		},
		Tools: call.Tools,
		Think: call.Think,
	}
}

// Counter counts requests with a model client's own counter (exact for a
// local Ollama model, /tokenize for servers that have it) and applies a
// calibration to what can only be estimated.
type Counter struct {
	// Client counts; nil estimates every request.
	Client llm.Client
	// Calibration scales estimates for the model (zero: none).
	Calibration Calibration
	// Memo, when set, keeps counts by request, so a caller that counts
	// every stage after each edit recounts only what changed.
	Memo *Memo
}

// Memo remembers exact and server counts by request. It is safe for
// concurrent use.
type Memo struct {
	mu sync.Mutex
	m  map[[32]byte]tokens.Count
}

// memoLimit bounds a memo; it starts over when full.
const memoLimit = 4096

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
	n, ok := c.Memo.m[k]
	c.Memo.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := c.count(ctx, req)
	if err == nil && n.Known() {
		c.Memo.mu.Lock()
		if c.Memo.m == nil || len(c.Memo.m) >= memoLimit {
			c.Memo.m = map[[32]byte]tokens.Count{}
		}
		c.Memo.m[k] = n
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
	if n.Method == tokens.Estimated {
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
// is only within about 6%; a stage's own ratio is within 2% once it has
// run, since its next run sends much the same kind of text.
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
	if ratio <= 0 || runs == 0 {
		return n
	}
	return tokens.Count{Tokens: int(math.Round(float64(n.Tokens) * ratio)), Method: tokens.Calibrated, Runs: runs, Ratio: ratio}
}

// Pair is one past model call: icm's heuristic estimate of its prompt and
// the server's count.
type Pair struct {
	Run, Stage, Model string
	Estimated, Server int
}

// maxCalibrationRuns bounds how far back calibration looks: the newest
// runs say most about the model and the workspace as they are now.
const maxCalibrationRuns = 20

// Calibrate computes the model's calibration from past calls (oldest
// first), using the calls of its newest maxCalibrationRuns runs.
func Calibrate(model string, pairs []Pair) Calibration {
	usable := func(p Pair) bool { return p.Model == model && p.Estimated > 0 && p.Server > 0 }
	kept := map[string]bool{}
	for i := len(pairs) - 1; i >= 0 && len(kept) < maxCalibrationRuns; i-- {
		if usable(pairs[i]) {
			kept[pairs[i].Run] = true
		}
	}
	type sums struct {
		est, real, calls int
		runs             map[string]bool
	}
	all := sums{runs: map[string]bool{}}
	stages := map[string]*sums{}
	for _, p := range pairs {
		if !usable(p) || !kept[p.Run] {
			continue
		}
		s := stages[p.Stage]
		if s == nil {
			s = &sums{runs: map[string]bool{}}
			stages[p.Stage] = s
		}
		for _, x := range []*sums{&all, s} {
			x.est += p.Estimated
			x.real += p.Server
			x.calls++
			x.runs[p.Run] = true
		}
	}
	c := Calibration{Model: model, Runs: len(all.runs), Calls: all.calls, Stages: map[string]StageRatio{}}
	if all.est > 0 {
		c.Ratio = float64(all.real) / float64(all.est)
	}
	for name, s := range stages {
		c.Stages[name] = StageRatio{Ratio: float64(s.real) / float64(s.est), Runs: len(s.runs), Calls: s.calls}
	}
	return c
}
