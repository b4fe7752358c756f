package promptcount_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/tokens"
)

func TestCalibrate(t *testing.T) {
	var pairs []promptcount.Pair
	// 25 runs of stage a; the 5 oldest had a ratio of 2, the 20 newest 1.1.
	for i := 0; i < 25; i++ {
		run := fmt.Sprintf("20261201-%06d-aaaaaa", i)
		ratio := 1.1
		if i < 5 {
			ratio = 2
		}
		pairs = append(pairs,
			promptcount.Pair{Run: run, Stage: "a", Model: "qwen3:latest", Estimated: 1000, Server: int(1000 * ratio), First: true},
			// A later call of the loop, with tool results: another ratio.
			promptcount.Pair{Run: run, Stage: "a", Model: "qwen3", Estimated: 3000, Server: 2400})
	}
	// Stage b ran once, with no first call kept; another model's calls.
	pairs = append(pairs,
		promptcount.Pair{Run: "20261201-000030-bbbbbb", Stage: "b", Model: "qwen3", Estimated: 500, Server: 450},
		promptcount.Pair{Run: "20261201-000031-cccccc", Stage: "a", Model: "llama3.2", Estimated: 1000, Server: 5000, First: true},
		promptcount.Pair{Run: "20261201-000032-dddddd", Stage: "a", Model: "qwen3", Estimated: 0, Server: 900, First: true})
	// The newest 20 runs with the model: 6..24 and b's.
	c := promptcount.Calibrate("qwen3", pairs)
	if c.Runs != promptcount.MaxCalibrationRuns || c.Calls != 19*2+1 {
		t.Errorf("calibrated from %d runs, %d calls", c.Runs, c.Calls)
	}
	a := c.Stages["a"]
	if a.Runs != 19 || a.Calls != 19 || a.Ratio < 1.0999 || a.Ratio > 1.1001 {
		t.Errorf("stage a: %+v, want the first calls' 1.1 over 19 runs", a)
	}
	if b := c.Stages["b"]; b.Ratio != 0.9 || b.Runs != 1 {
		t.Errorf("stage b: %+v", b)
	}
	est := tokens.Count{Tokens: 2000, Method: tokens.Estimated}
	for stage, want := range map[string]struct {
		tokens int
		label  string
	}{
		"a":   {2200, "calibrated from 19 runs"},
		"b":   {1800, "calibrated from 1 run"},
		"new": {int(float64(2000)*c.Ratio + 0.5), "calibrated from 20 runs"},
	} {
		got := c.Apply(stage, est)
		if got.Tokens != want.tokens || got.Label() != want.label || got.Method != tokens.Calibrated {
			t.Errorf("%s: %d (%s), want %d (%s)", stage, got.Tokens, got.Label(), want.tokens, want.label)
		}
	}
	exact := tokens.Count{Tokens: 2000, Method: tokens.Exact}
	if got := c.Apply("a", exact); got != exact {
		t.Errorf("an exact count was calibrated: %+v", got)
	}
	if got := promptcount.Calibrate("mistral", pairs).Apply("a", est); got != est {
		t.Errorf("a model with no runs: %+v", got)
	}
}

// TestCalibrationIsBounded: calibration from a history/ a workspace
// ships scales an estimate by a ratio within [MinRatio, MaxRatio], sums
// without overflowing, and never makes a non-empty prompt's count 0,
// negative or past the largest count. Failed before: a trace claiming
// 9e18 tokens made the first call 0 or -9223372036854775808 tokens
// ("fits"), and one claiming one token for a huge estimate made it 0.
func TestCalibrationIsBounded(t *testing.T) {
	est := tokens.Count{Tokens: 2000, Method: tokens.Estimated}
	for name, pairs := range map[string][]promptcount.Pair{
		"a huge server count": {{Run: "r1", Stage: "a", Model: "m", Estimated: 1, Server: 9e18, First: true}},
		"a huge estimate":     {{Run: "r1", Stage: "a", Model: "m", Estimated: 9e18, Server: 1, First: true}},
		"sums past the largest int": {
			{Run: "r1", Stage: "a", Model: "m", Estimated: 1 << 62, Server: 1 << 62, First: true},
			{Run: "r2", Stage: "a", Model: "m", Estimated: 1 << 62, Server: 1 << 62, First: true},
			{Run: "r3", Stage: "a", Model: "m", Estimated: 1, Server: 1 << 62, First: true},
		},
		"negative counts": {{Run: "r1", Stage: "a", Model: "m", Estimated: -5, Server: 100, First: true}, {Run: "r2", Stage: "a", Model: "m", Estimated: 10, Server: -100, First: true}},
	} {
		c := promptcount.Calibrate("m", pairs)
		for _, stage := range []string{"a", "other"} {
			got := c.Apply(stage, est)
			if got.Tokens < 1 || float64(got.Tokens) > float64(est.Tokens)*promptcount.MaxRatio+1 || float64(got.Tokens) < float64(est.Tokens)*promptcount.MinRatio-1 {
				t.Errorf("%s, stage %s: %d tokens (ratio %g)", name, stage, got.Tokens, got.Ratio)
			}
		}
		if got := c.Apply("a", tokens.Count{Tokens: 1, Method: tokens.Estimated}); got.Tokens < 1 {
			t.Errorf("%s: a one-token prompt counts %d", name, got.Tokens)
		}
	}
	huge := promptcount.Calibrate("m", []promptcount.Pair{{Run: "r1", Stage: "a", Model: "m", Estimated: 1000, Server: 4000, First: true}})
	if got := huge.Apply("a", tokens.Count{Tokens: math.MaxInt, Method: tokens.Estimated}); got.Tokens <= 0 {
		t.Errorf("the largest estimate scaled to %d", got.Tokens)
	}
}
