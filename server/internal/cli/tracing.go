package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/telemetry"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// traceFlushWait bounds how long the end of a command waits for the
// OTLP collector to take the run's spans.
const traceFlushWait = 5 * time.Second

// withTracing adds the OTLP exporter to a run's progress when the
// environment names an endpoint (OTEL_EXPORTER_OTLP_ENDPOINT). It returns
// the progress function to use and the one that sends what is left when
// the run is over. A bad setting is a warning: tracing never stops a run.
func withTracing(ctx context.Context, env *Env, ws *workspace.Workspace, progress func(workflow.Event)) (func(workflow.Event), func()) {
	x, err := telemetry.FromEnv(ctx, env.Getenv, telemetry.Options{ServiceVersion: Version})
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: traces are not exported: %v\n", err)
	}
	if x == nil {
		return progress, func() {}
	}
	observe := x.Observe(telemetry.RunInfo{Workspace: ws.Root, Provider: ws.Config.Model.Provider})
	return telemetry.Tee(progress, observe), func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceFlushWait)
		defer cancel()
		if err := x.Shutdown(sctx); err != nil {
			fmt.Fprintf(env.Stderr, "warning: %v\n", err)
		}
	}
}
