package session

import (
	"context"
	"time"

	"github.com/icm-tool/icm/server/internal/telemetry"
)

// traceFlushWait bounds how long the end of a run or of the session waits
// for the OTLP collector to take the spans.
const traceFlushWait = 5 * time.Second

// exporterFor returns the session's span exporter, made on first use from
// the OTLP variables of the environment; nil when they name no endpoint.
func (s *Session) exporterFor(ctx context.Context) *telemetry.Exporter {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.traced && !s.closed {
		s.traced = true
		x, err := telemetry.FromEnv(ctx, s.opts.Getenv, telemetry.Options{ServiceVersion: s.opts.Version})
		if err != nil {
			s.warn("traces are not exported: " + err.Error())
		}
		s.exporter = x
	}
	return s.exporter
}

// trace lays the exporter's observer over the run's, when there is an
// exporter, and returns the function that sends the run's spans. Tracing
// never stops a run: a bad setting is a warning.
func (s *Session) trace(ctx context.Context, r *Run) func() {
	x := s.exporterFor(ctx)
	if x == nil {
		return func() {}
	}
	r.observe = telemetry.Tee(r.observe, x.Observe(telemetry.RunInfo{Workspace: s.ws.Root, Provider: s.ws.Config.Model.Provider}))
	return func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceFlushWait)
		defer cancel()
		if err := x.Flush(fctx); err != nil {
			s.warn("traces were not all sent: " + err.Error())
		}
	}
}

// Close sends what tracing still holds and stops the tool servers the
// session started to list their tools. It is safe to call more than once.
func (s *Session) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	x, c := s.exporter, s.catalog
	s.mu.Unlock()
	if c != nil {
		c.Forget()
		c.Wait()
	}
	if x != nil {
		ctx, cancel := context.WithTimeout(context.Background(), traceFlushWait)
		defer cancel()
		if err := x.Shutdown(ctx); err != nil {
			s.warn("traces were not all sent: " + err.Error())
		}
	}
}
