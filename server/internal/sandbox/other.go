//go:build !linux

package sandbox

import (
	"context"
	"errors"
)

// Runner runs Specs; only Linux has the sandbox.
type Runner struct {
	Exe string
}

// Available reports that the sandbox needs Linux.
func Available() error { return errors.New("the code sandbox needs Linux namespaces") }

// Run refuses: only Linux has the sandbox.
func (r *Runner) Run(ctx context.Context, spec Spec) (*Result, error) { return nil, Available() }

func initMain() int { return 2 }
func execMain() int { return 2 }
