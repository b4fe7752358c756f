package promptcount_test

import (
	"context"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// countingClient counts with a fixed method and counts its counts.
type countingClient struct {
	llm.Client
	method tokens.Method
	counts int
}

func (c *countingClient) CountPrompt(_ context.Context, req llm.ChatRequest) (tokens.Count, error) {
	c.counts++
	return tokens.Count{Tokens: 100 + c.counts, Method: c.method}, nil
}

// TestMemoKeepsKnownCountsForAMinute: a count the server will agree with
// is kept by request for a minute (the editor counts every stage after
// each edit), then made again, since a new pull of the model changes it
// without changing the request; estimates are never kept.
func TestMemoKeepsKnownCountsForAMinute(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	memo := &promptcount.Memo{}
	promptcount.SetMemoClock(memo, func() time.Time { return now })
	req := llm.ChatRequest{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	exact := &countingClient{method: tokens.Exact}
	c := &promptcount.Counter{Client: exact, Memo: memo}
	for i := 0; i < 3; i++ {
		if n, _ := c.Count(context.Background(), req); n.Tokens != 101 {
			t.Fatalf("count %d: %+v", i, n)
		}
	}
	now = now.Add(61 * time.Second)
	if n, _ := c.Count(context.Background(), req); n.Tokens != 102 || exact.counts != 2 {
		t.Errorf("after a minute: %+v after %d counts, want a new count", n, exact.counts)
	}
	guess := &countingClient{method: tokens.Estimated}
	g := &promptcount.Counter{Client: guess, Memo: &promptcount.Memo{}}
	for i := 0; i < 3; i++ {
		_, _ = g.Count(context.Background(), req)
	}
	if guess.counts != 3 {
		t.Errorf("estimates were kept: %d counts for 3", guess.counts)
	}
}
