package stagetest

import (
	"time"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/report"
)

// Defaults of Options.
const (
	DefaultRepeat = 1
	DefaultSeed   = 1
)

// Options say what a run does.
type Options struct {
	// Models are the models of the matrix; empty means the one each stage
	// is configured with.
	Models []string
	// Repeat runs each case this many times per model, repeat i with seed
	// Seed+i-1.
	Repeat int
	// Seed is the first repeat's seed.
	Seed int
	// Parallel is how many jobs run at once (at least 1).
	Parallel int
	// Judge is the model that scores rubric lines; "" means the
	// workspace's configured model.
	Judge string
	// Cache replays identical model requests from history/tests/cache/.
	Cache bool
	// Keep leaves each job's copy of the workspace in place (its path is in
	// the result) instead of removing it.
	Keep bool
	// Progress receives a job's start and end, one event at a time.
	Progress func(report.TestEvent)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Repeat < 1 {
		o.Repeat = DefaultRepeat
	}
	if o.Parallel < 1 {
		o.Parallel = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// DefaultParallel is how many jobs to run at once when the person does
// not say: the slots of the [[model.servers]] pool (each server at least
// one), so every slot has a job and none waits; 1 without a pool.
func DefaultParallel(m config.Model) int {
	n := 0
	for _, s := range m.Servers {
		n += max(s.Slots, 1)
	}
	return max(n, 1)
}

// WithConfig fills what o leaves unset from config.toml: [test]'s models,
// repeat, parallel, seed and judge, else the defaults (parallel: the
// [[model.servers]] slots). Set fields win: they are the person's flags.
func (o Options) WithConfig(cfg config.Config) Options {
	t := cfg.Test
	if len(o.Models) == 0 {
		o.Models = t.Models
	}
	if o.Repeat <= 0 {
		o.Repeat = max(t.Repeat, DefaultRepeat)
	}
	if o.Seed == 0 {
		o.Seed = t.Seed
		if o.Seed == 0 {
			o.Seed = DefaultSeed
		}
	}
	if o.Parallel <= 0 {
		o.Parallel = t.Parallel
		if o.Parallel <= 0 {
			o.Parallel = DefaultParallel(cfg.Model)
		}
	}
	if o.Judge == "" {
		o.Judge = t.Judge
	}
	return o
}
