package promptcount_test

import (
	"context"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestItemsSayWhatTheyShare: each For each item's count says how much of
// it an earlier item's first call begins with too (the stage's shared
// part: contract, references, inputs) and how much is its own. With the
// model's files the split is in the model's tokens (one per byte for the
// tiny model, so the three items, alike but for one letter and one line,
// share the same start); without them it is estimated from the
// characters shared.
func TestItemsSayWhatTheyShare(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "tiny"
-- plan.md --
# Plan

## Part A
- the first point

## Part B
- the second point

## Part C
- the third point
-- pipeline/01-write/CONTEXT.md --
# Stage: 01-write
## Inputs
- Layer 3 (reference): ../../plan.md
## For each
part in ../../plan.md
## Process
Write the part shown below, in the voice of the plan.
## Outputs
- parts.md -> output/
`)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := ws.Stages[0]
	k := check.Run(ws, check.Options{}).Stage(st.Name).Contract
	call := promptcount.Call{Model: "tiny"}
	split := func(t *testing.T, n *promptcount.Stage, method tokens.Method) {
		t.Helper()
		if len(n.Items) != 3 {
			t.Fatalf("%d items", len(n.Items))
		}
		for i, it := range n.Items {
			if it.Count.Method != method || it.Shared+it.Own != it.Count.Tokens {
				t.Errorf("item %d: %+v, want %s, shared and own adding up", i+1, it, method)
			}
		}
		if a, b, c := n.Items[0], n.Items[1], n.Items[2]; a.Shared != 0 || b.Shared == 0 || b.Shared < b.Own || c.Shared != b.Shared {
			t.Errorf("shared %d, %d, %d; want none for the first, most of the second, the same for the third", a.Shared, b.Shared, c.Shared)
		}
	}
	t.Run("estimated", func(t *testing.T) {
		n, err := (&promptcount.Counter{}).Stage(context.Background(), ws, st, k, assemble.Options{}, call)
		if err != nil {
			t.Fatal(err)
		}
		split(t, n, tokens.Estimated)
	})
	t.Run("exact", func(t *testing.T) {
		files := t.TempDir()
		if err := realollama.LayOut(files, "tiny", realollama.ModelSpec{}, ""); err != nil {
			t.Fatal(err)
		}
		f, err := ollamamodel.Find([]string{files}, "tiny")
		if err != nil {
			t.Fatal(err)
		}
		srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", Digest: f.Digest, ContextLength: 8192}}})
		client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()),
			llm.WithModelFiles(ollamamodel.NewCache([]string{files})))
		if err != nil {
			t.Fatal(err)
		}
		n, err := (&promptcount.Counter{Client: client}).Stage(context.Background(), ws, st, k, assemble.Options{}, call)
		if err != nil {
			t.Fatal(err)
		}
		split(t, n, tokens.Exact)
		// One token per byte: an item's own part is its text from the
		// letter on, then the template's end of the turn.
		b := n.Items[1]
		if want := len("B\n- the second point") + 1 + 1 + 1 + len("assistant\n"); b.Own < want {
			t.Errorf("item 2 owns %d tokens, want at least %d", b.Own, want)
		}
	})
}
