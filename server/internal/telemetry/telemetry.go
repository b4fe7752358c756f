// Package telemetry exports icm's runs as OpenTelemetry traces over OTLP,
// so Jaeger, Langfuse, Opik or any collector shows them beside the JSONL
// trace in history/. It listens to the run engine's events (the same
// stream the CLI prints and the language server turns into progress) and
// rebuilds the tree from them: a run holds its stages, a For each stage
// its items, and each holds its model calls and tool calls, every span
// with the start and end times the events carry and the OpenTelemetry
// GenAI attributes (operation, model, token usage, tool name).
//
// Nothing is exported unless OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, as the OpenTelemetry
// convention has it; OTEL_EXPORTER_OTLP_PROTOCOL picks http/protobuf (the
// default) or grpc, and the SDK reads the other standard variables
// (OTEL_EXPORTER_OTLP_HEADERS, _COMPRESSION, and for grpc _TIMEOUT and
// the certificates) itself. Spans go out through package act like every
// connection icm opens; for http/protobuf icm hands the exporter that
// client, so it reads _TIMEOUT and the certificates for it.
package telemetry

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/icm-tool/icm/server/internal/report"
)

// scope names the instrumentation in every exported batch.
const scope = "github.com/icm-tool/icm/server/internal/telemetry"

// Options describe the process that exports.
type Options struct {
	// ServiceName is service.name; OTEL_SERVICE_NAME overrides it in
	// FromEnv, and "icm" is used when both are empty.
	ServiceName string
	// ServiceVersion is service.version (icm's version).
	ServiceVersion string
}

// Exporter turns run events into spans and sends them. One Exporter
// serves any number of runs, one after another or at once (the language
// server keeps one for its life); it is safe for concurrent use.
type Exporter struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
}

// New returns an Exporter sending through exp in batches.
func New(exp sdktrace.SpanExporter, o Options) *Exporter {
	name := o.ServiceName
	if name == "" {
		name = "icm"
	}
	attrs := []attribute.KeyValue{semconv.ServiceName(name)}
	if o.ServiceVersion != "" {
		attrs = append(attrs, semconv.ServiceVersion(o.ServiceVersion))
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewWithAttributes(semconv.SchemaURL, attrs...)),
	)
	return &Exporter{tp: tp, tracer: tp.Tracer(scope)}
}

// RunInfo says what the spans of one run are about.
type RunInfo struct {
	// Workspace is the workspace's folder.
	Workspace string
	// Provider is the model API ("ollama" or "openai"): gen_ai.provider.name.
	Provider string
}

// Observe returns the function that takes one run's events (a
// workflow.Options.Progress, or part of one through Tee). On a nil
// Exporter it returns nil, which Tee leaves out.
func (x *Exporter) Observe(info RunInfo) func(report.Event) {
	if x == nil {
		return nil
	}
	return newTracker(x.tracer, info).event
}

// Flush sends every finished span now.
func (x *Exporter) Flush(ctx context.Context) error {
	if x == nil {
		return nil
	}
	return x.tp.ForceFlush(ctx)
}

// Shutdown sends what is left and stops the exporter; the caller bounds
// the wait with ctx, so an unreachable collector cannot hold up exit.
func (x *Exporter) Shutdown(ctx context.Context) error {
	if x == nil {
		return nil
	}
	if err := x.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("unable to send the run's traces to the OTLP endpoint: %w", err)
	}
	return nil
}

// Tee returns a function passing each event to every non-nil fn in
// order (the CLI's printer and the exporter, say); nil when none is left.
func Tee(fns ...func(report.Event)) func(report.Event) {
	var live []func(report.Event)
	for _, f := range fns {
		if f != nil {
			live = append(live, f)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	return func(ev report.Event) {
		for _, f := range live {
			f(ev)
		}
	}
}
