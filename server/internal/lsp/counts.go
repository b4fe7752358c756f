package lsp

import (
	"context"
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// countTimeout bounds counting a workspace's stages in one analysis.
const countTimeout = time.Second

// countStages counts every stage's first calls the way the run will send
// them (exact with the model's own files when they are on this machine),
// once per analysis, so a hover only reads the result. Tool definitions
// are not listed here yet: the counts cover system, user and the
// template's tokens.
func (st *wsState) countStages(ctx context.Context, ws *workspace.Workspace, rep *check.Report) map[string]*promptcount.Stage {
	// The server is asked at most once here (/api/tags, to match the
	// local files' digest); a server that hangs must not hold up the
	// diagnostics, so the whole count is bounded.
	ctx, cancel := context.WithTimeout(ctx, countTimeout)
	defer cancel()
	client, model, err := st.client(ws, llm.WithModelFiles(st.s.modelFiles))
	if err != nil {
		client = nil
	}
	counter := &promptcount.Counter{Client: client, Memo: &st.countMemo}
	out := map[string]*promptcount.Stage{}
	for _, stage := range ws.Stages {
		sr := rep.Stage(stage.Name)
		if sr == nil || sr.Contract == nil || sr.Context == nil {
			continue
		}
		call := promptcount.Call{Model: model, Think: ws.Config.Model.Think}
		n, err := counter.Stage(ctx, ws, stage, sr.Contract, assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy}, call)
		if err != nil {
			st.s.log.Info("unable to count the stage", "stage", stage.Name, "err", err)
			continue
		}
		out[stage.Name] = n
	}
	return out
}

// countLine is the hover's count of a stage's first call and how it was
// made: "1,300 tokens, exact (model tokenizer: BPE qwen2, 151669 tokens)".
func countLine(n *promptcount.Stage) string {
	c := n.First
	s := fmt.Sprintf("%d tokens, %s", c.Tokens, c.Label())
	if c.Tokenizer != "" {
		s = fmt.Sprintf("%d tokens, %s: %s", c.Tokens, c.Label(), c.Tokenizer)
	}
	if len(n.Items) > 1 {
		s += fmt.Sprintf("; the whole stage %d tokens in %d first calls", n.Total.Tokens, len(n.Items))
	}
	return s
}
