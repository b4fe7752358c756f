package session

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// forEachShare is the For each stage whose items share the most: its
// count, with each item's shared and own tokens.
type forEachShare struct {
	stage string
	count *promptcount.Stage
	// shared is the most an item shares with an earlier one.
	shared int
}

// largestShare counts the first calls of each For each stage whose items
// are known and keeps the one whose items share the most.
func (dr Doctor) largestShare(ctx context.Context, rep *check.Report) *forEachShare {
	s := dr.s
	var best *forEachShare
	for _, sr := range rep.Stages {
		if sr.Contract == nil || sr.Contract.ForEach == nil || sr.Contract.Script != nil {
			continue
		}
		n, err := s.Counts().Stage(ctx, s.ws, sr.Stage, sr.Contract, assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy, Order: rep.Order}, nil, s.Tools().unstarted)
		if err != nil || n == nil || len(n.Items) < 2 {
			continue
		}
		shared := 0
		for _, it := range n.Items {
			shared = max(shared, it.Shared)
		}
		if best == nil || shared*len(n.Items) > best.shared*len(best.count.Items) {
			best = &forEachShare{stage: sr.Stage.Name, count: n, shared: shared}
		}
	}
	return best
}

// prefill says what this workspace's parallel For each items cost in
// prefill on the model server as icm knows it (config.toml's [model]
// slots and multiuser_cache), with the workspace's own figures, and what
// fixes it for this model: the multi-user cache where the model runs on
// Ollama's new engine, else one item at a time. No line when no For
// each stage has its items yet.
func (dr Doctor) prefill(ctx context.Context, d *Diagnosis, model string, rep *check.Report) {
	s := dr.s
	share := dr.largestShare(ctx, rep)
	if share == nil {
		return
	}
	l := DiagLine{ID: "prefill", Title: "For each prefill"}
	n := share.count
	items := len(n.Items)
	approx := ""
	if n.Items[0].Count.Method != tokens.Exact {
		approx = "~"
	}
	figure := func(v int) string { return approx + human.Approx(v) }
	least := 0
	for _, it := range n.Items {
		least += it.Own
	}
	wf := s.ws.Config.Workflow
	parallel := min(max(wf.Parallel, 1), items)
	setup := llm.CachesOf(s.modelConfig()).Default
	engine, known := s.modelEngine(model)
	runsOn := "its runner is not known (the model's files are not on this machine)"
	if known {
		runner := "llama.cpp's runner"
		if engine.NewEngine() {
			runner = "Ollama's new engine"
		}
		runsOn = fmt.Sprintf("%s runs on %s (architecture %s)", model, runner, engine.Architecture)
	}
	what := fmt.Sprintf("%s: %d items of %s tokens share %s", share.stage, items, figure(n.Items[0].Count.Tokens), figure(share.shared))
	config := fault.Action{ID: fault.OpenFile, File: s.ws.Config.Path, Line: 1}
	switch {
	case setup.MultiUser && known && !engine.NewEngine():
		l.Status = DiagFail
		l.Text = fmt.Sprintf("%s; config.toml says the server copies computed prompt starts between slots (multi-user cache), but %s, which stops at the first copy", what, runsOn)
		l.Fix = &DiagFix{Setting: "[model] multiuser_cache = false in config.toml and start Ollama without OLLAMA_MULTIUSER_CACHE, or [workflow] parallel = 1", Action: config}
	case parallel == 1:
		l.Status = DiagOK
		l.Text = fmt.Sprintf("%s; one item at a time, each reuses the start the one before computed: %s tokens for the stage", what, figure(least))
	case setup.MultiUser && wf.Warm():
		l.Status = DiagOK
		l.Text = fmt.Sprintf("%s; the first item goes alone and the server copies its computed start to the %d that follow at once (multi-user cache): %s tokens for the stage", what, parallel-1, figure(least))
	case setup.MultiUser:
		l.Status = DiagWarn
		l.Text = fmt.Sprintf("%s; warm_first = false starts %d items at once, before any has a computed start to copy: the shared %s tokens are computed %d times", what, parallel, figure(share.shared), parallel)
		l.Fix = &DiagFix{Setting: "[workflow] warm_first = true in config.toml (or leave it out)", Action: config}
	default:
		l.Status = DiagWarn
		cost := least + (parallel-1)*share.shared
		l.Text = fmt.Sprintf("%s; %d items in parallel prefill the shared %s tokens %d times on a server that does not share prefixes (%s tokens for the stage where %s would do); %s",
			what, parallel, figure(share.shared), parallel, figure(cost), figure(least), runsOn)
		switch {
		case known && engine.NewEngine():
			cmd := withEnv("ollama serve", map[string]string{envMultiuserCache: "1", envNumParallel: fmt.Sprint(max(wf.Parallel, 1))})
			l.Text += ": start Ollama with its multi-user cache, and say so in config.toml ([model] multiuser_cache = true)"
			l.Fix = &DiagFix{Command: cmd, Action: fault.Action{ID: fault.StartServer, Command: cmd, URL: s.ModelServer().URL()}}
		default:
			l.Text += ": the multi-user cache that lets items share is safe only on Ollama's new engine, so run one item at a time (each then reuses the one before)"
			l.Fix = &DiagFix{Setting: "[workflow] parallel = 1 in config.toml", Action: config}
		}
	}
	d.add(l)
}
