package stagetest

import (
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// TestTheFirstRepeatWarmsTheServer: icm test's jobs of one model run at
// once, but the first goes alone until the server has read its prompt
// (the repeats share all of it): repeat 2's request arrives only after
// repeat 1's first token. Repeat 1 waits in its slot until another repeat
// arrives or a fallback passes, so jobs sent together are seen at once
// whatever the machine's timing. On the code before, they arrived
// together.
func TestTheFirstRepeatWarmsTheServer(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "alpha", ContextLength: 8192, Family: "qwen3", Capabilities: []string{"completion"}}}})
	srv.On(ollamatest.HasFormat()).Reply(ollamatest.JSON(map[string]any{"score": 8, "reason": "Each line starts with a verb."}))
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		begun   bool
		early   int
		arrived = make(chan struct{})
		once    sync.Once
	)
	begin := make(chan struct{})
	go func() {
		select {
		case <-arrived:
		case <-time.After(300 * time.Millisecond):
			mu.Lock()
			begun = true
			mu.Unlock()
		}
		close(begin)
	}()
	srv.On(ollamatest.LastUserContains("Learn Go")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		text := ollamatest.Text("1. Write Go programs.\n2. Test Go code.\n")
		if seed, _ := r.IntOption("seed"); seed == 40 {
			return text.WithHold(begin)
		}
		mu.Lock()
		if !begun {
			early++
		}
		mu.Unlock()
		once.Do(func() { close(arrived) })
		return text
	})
	runCases(t, openSmall(t), client, Options{Repeat: 3, Seed: 40, Parallel: 3}, "01-idea/go")
	mu.Lock()
	defer mu.Unlock()
	if !begun || early > 0 {
		t.Errorf("%d repeats' requests arrived before repeat 1's first token", early)
	}
}
