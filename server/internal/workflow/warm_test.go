package workflow_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// warmScript answers a For each stage of three parts against a scripted
// server and notes, as part 2's request arrives, whether part 1 had begun
// its answer and whether it had ended. Part 1 waits in its slot until part
// 2 arrives or a fallback passes, so on a schedule that sends both at
// once part 2 is seen arriving before part 1 answered, whatever the
// machine's timing; then part 1 pauses after its first chunk until part 2
// arrives, so part 2 is seen arriving before part 1 ended only on a
// schedule that does not wait for the end. The fallbacks only bound how
// long a wrong schedule takes to fail.
type warmScript struct {
	mu sync.Mutex
	// begun and ended say whether part 1 had begun (left its slot's wait
	// by the fallback, not by part 2's arrival) and ended when part 2 arrived.
	begun, ended, arrived bool
	part2                 chan struct{}
	once                  sync.Once
	part1Finished         chan struct{}
}

func newWarmScript() *warmScript {
	return &warmScript{part2: make(chan struct{}), part1Finished: make(chan struct{})}
}

// onAnswered notes the end of part 1's answer (the server's OnAnswered).
func (w *warmScript) onAnswered(rec ollamatest.Record) {
	if rec.Chat != nil && strings.Contains(rec.Chat.LastUser(), "\n## Part A") {
		close(w.part1Finished)
	}
}

// script answers the parts, part 1 as the type's comment says.
func (w *warmScript) script(srv *ollamatest.Server) {
	begin := make(chan struct{})
	go func() {
		select {
		case <-w.part2:
		case <-time.After(300 * time.Millisecond):
			w.mu.Lock()
			w.begun = true
			w.mu.Unlock()
		}
		close(begin)
	}()
	pause := make(chan struct{})
	go func() {
		select {
		case <-w.part2:
		case <-time.After(10 * time.Second):
		}
		close(pause)
	}()
	srv.On(ollamatest.UserContains("WRITE the part")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		u := r.LastUser()
		i := strings.Index(u, "\n## Part ")
		n := u[i+9 : i+10]
		text := ollamatest.Text("## Part " + n + "\n\nText of the part.")
		switch n {
		case "A":
			return text.WithHold(begin).WithPause(pause)
		case "B":
			w.mu.Lock()
			w.arrived = true
			select {
			case <-w.part1Finished:
				w.ended = true
			default:
			}
			w.mu.Unlock()
			w.once.Do(func() { close(w.part2) })
		}
		return text
	})
}

// TestForEachWarmsTheServerBeforeFanningOut: with parallel items, the
// first item's request goes alone until the server has read its prompt
// (its first streamed token), then the others go, without waiting for
// the first to end; with warm_first = false they start together as
// before. On the code before the schedule, part 2's request arrived while
// part 1 still waited for its first token.
func TestForEachWarmsTheServerBeforeFanningOut(t *testing.T) {
	for _, warm := range []bool{true, false} {
		name, setting := "warm", ""
		if !warm {
			name, setting = "together", "warm_first = false"
		}
		t.Run(name, func(t *testing.T) {
			w := newWarmScript()
			srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768}}, Slots: 4, OnAnswered: w.onAnswered})
			w.script(srv)
			dir := writeParts(t, "[model]\nname = \"qwen3.5:9b\"\n[workflow]\nparallel = 2\n"+setting, 3)
			client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()))
			if err != nil {
				t.Fatal(err)
			}
			sum := runOnce(t, dir, client)
			if len(sum.Ran) != 1 || sum.Ran[0].Status != "done" {
				t.Fatalf("run: %+v", sum.Ran)
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if !w.arrived {
				t.Fatal("part 2 was never asked for")
			}
			if warm && !w.begun {
				t.Error("part 2's request arrived before part 1's first token: the items started together")
			}
			if warm && w.ended {
				t.Error("part 2's request waited for part 1 to end: it should go once part 1's prompt is read")
			}
			if !warm && w.begun {
				t.Error("with warm_first = false, part 2 waited for part 1's first token")
			}
		})
	}
}
