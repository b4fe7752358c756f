package lsp

import (
	"log/slog"
	"sync"
)

// group is the goroutines the server starts (background work and
// requests): Serve returns only once they have ended.
type group struct {
	log *slog.Logger
	wg  sync.WaitGroup
	// closed (under mu) refuses new goroutines once Serve waits.
	mu     sync.Mutex
	closed bool
}

// Go runs f on a goroutine Serve waits for, and reports whether it did
// (not once Serve has stopped waiting). A panic in f is logged.
func (g *group) Go(f func()) bool {
	// Once Serve waits for the goroutines to end, no new one starts: a
	// goroutine Serve does not count (an analysis loop of a workspace
	// found while closing) could otherwise add to the group mid-wait.
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return false
	}
	g.wg.Add(1)
	g.mu.Unlock()
	go func() {
		defer g.wg.Done()
		defer g.recoverLog("background task")
		f()
	}()
	return true
}

// wait refuses new goroutines and waits for those going on.
func (g *group) wait() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wg.Wait()
}

// recoverLog logs a panic of a background goroutine instead of ending the
// process.
func (g *group) recoverLog(what string) {
	if r := recover(); r != nil {
		g.log.Error("panic recovered", "in", what, "panic", r, "stack", stack())
	}
}
