package telemetry

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/icm-tool/icm/server/internal/report"
)

// Attributes icm adds beside the GenAI ones.
const (
	attrRunID       = attribute.Key("icm.run.id")
	attrWorkspace   = attribute.Key("icm.workspace")
	attrStage       = attribute.Key("icm.stage")
	attrStatus      = attribute.Key("icm.status")
	attrItemTitle   = attribute.Key("icm.item.title")
	attrItemIndex   = attribute.Key("icm.item.index")
	attrItemCount   = attribute.Key("icm.item.count")
	attrItemReused  = attribute.Key("icm.item.reused")
	attrPurpose     = attribute.Key("icm.model.purpose")
	attrNumCtx      = attribute.Key("icm.model.num_ctx")
	attrEstimate    = attribute.Key("icm.model.prompt_estimate")
	attrAttempts    = attribute.Key("icm.model.attempts")
	attrToolServer  = attribute.Key("icm.tool.server")
	attrToolTool    = attribute.Key("icm.tool.tool")
	attrResultSize  = attribute.Key("icm.tool.result_size")
	attrTruncated   = attribute.Key("icm.tool.truncated")
	attrInputTotal  = attribute.Key("icm.usage.input_tokens")
	attrOutputTotal = attribute.Key("icm.usage.output_tokens")
	// gen_ai.system is what gen_ai.provider.name was called before
	// semantic conventions 1.37; some backends still read only it.
	attrSystem = attribute.Key("gen_ai.system")
)

// open is a span still running and the context its children start from.
type open struct {
	ctx  context.Context
	span trace.Span
	// start is when the span began; a call inside it cannot start earlier.
	start time.Time
}

// startIn is when a call that ended at end after d began, kept inside its
// parent: a call's duration is measured by another clock than the event
// times (the model server's, the tool session's), and a few microseconds
// of difference must not put a child before its parent.
func startIn(parent *open, end time.Time, d time.Duration) time.Time {
	start := end.Add(-d)
	if start.Before(parent.start) {
		return parent.start
	}
	return start
}

type itemKey struct {
	stage string
	index int
}

// tracker rebuilds one run's span tree from its events. Events of For
// each items arrive from several goroutines at once.
type tracker struct {
	tracer trace.Tracer
	info   RunInfo

	mu     sync.Mutex
	run    *open
	stages map[string]*open
	items  map[itemKey]*open
}

func newTracker(t trace.Tracer, info RunInfo) *tracker {
	return &tracker{tracer: t, info: info, stages: map[string]*open{}, items: map[itemKey]*open{}}
}

func (t *tracker) event(ev report.Event) {
	if ev.Kind == report.EventDelta {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev.Kind {
	case report.EventRunStart:
		t.runSpan(ev)
	case report.EventStageStart:
		t.stageStart(ev)
	case report.EventItemStart:
		t.itemStart(ev)
	case report.EventModel:
		if ev.Model != nil {
			t.modelCall(ev)
		}
	case report.EventTool:
		if ev.Tool != nil {
			t.toolCall(ev)
		}
	case report.EventItemEnd:
		t.itemEnd(ev)
	case report.EventVerify, report.EventScript, report.EventGate:
		t.note(ev)
	case report.EventStageEnd:
		t.stageEnd(ev)
	case report.EventRunEnd:
		t.runEnd(ev)
	}
}

// runSpan returns the run's span, starting it at ev's time when the run
// start was not seen (an observer attached late still gets a whole tree).
func (t *tracker) runSpan(ev report.Event) *open {
	if t.run != nil {
		return t.run
	}
	ctx, span := t.tracer.Start(context.Background(), "icm run", trace.WithTimestamp(ev.Time), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrRunID.String(ev.RunID), attrWorkspace.String(t.info.Workspace)))
	t.run = &open{ctx: ctx, span: span, start: ev.Time}
	return t.run
}

// stageSpan returns the stage's span, starting it when its start was not seen.
func (t *tracker) stageSpan(ev report.Event) *open {
	if s, ok := t.stages[ev.Stage]; ok {
		return s
	}
	t.stageStart(ev)
	return t.stages[ev.Stage]
}

func (t *tracker) stageStart(ev report.Event) {
	parent := t.runSpan(ev)
	name, attrs := "stage "+ev.Stage, []attribute.KeyValue{attrStage.String(ev.Stage)}
	if ev.Message != "script" && !strings.HasSuffix(ev.Message, ": script") {
		// A model stage is an agent invocation: the model with its tools.
		name = "invoke_agent " + ev.Stage
		attrs = append(attrs, semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentName(ev.Stage), semconv.GenAIConversationID(ev.RunID))
		attrs = append(attrs, t.provider()...)
	}
	ctx, span := t.tracer.Start(parent.ctx, name, trace.WithTimestamp(ev.Time), trace.WithAttributes(attrs...))
	t.stages[ev.Stage] = &open{ctx: ctx, span: span, start: ev.Time}
}

func (t *tracker) itemStart(ev report.Event) {
	parent := t.stageSpan(ev)
	ctx, span := t.tracer.Start(parent.ctx, fmt.Sprintf("item %d/%d %s", ev.Index, ev.Count, ev.Item), trace.WithTimestamp(ev.Time),
		trace.WithAttributes(attrStage.String(ev.Stage), attrItemTitle.String(ev.Item), attrItemIndex.Int(ev.Index), attrItemCount.Int(ev.Count)))
	t.items[itemKey{ev.Stage, ev.Index}] = &open{ctx: ctx, span: span, start: ev.Time}
}

// parentOf is where a model or tool call belongs: its item, else its stage.
func (t *tracker) parentOf(ev report.Event) *open {
	if ev.Count > 0 {
		if it, ok := t.items[itemKey{ev.Stage, ev.Index}]; ok {
			return it
		}
	}
	return t.stageSpan(ev)
}

func (t *tracker) provider() []attribute.KeyValue {
	if t.info.Provider == "" {
		return nil
	}
	return []attribute.KeyValue{semconv.GenAIProviderNameKey.String(t.info.Provider), attrSystem.String(t.info.Provider)}
}

// modelCall records a finished model call: it ended at the event and
// lasted its Duration.
func (t *tracker) modelCall(ev report.Event) {
	m := ev.Model
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameChat,
		semconv.GenAIRequestModel(m.Model),
		attrPurpose.String(m.Purpose),
		attrAttempts.Int(m.Attempts),
	}
	attrs = append(attrs, t.provider()...)
	if m.Err == "" {
		attrs = append(attrs,
			semconv.GenAIResponseModel(m.Model),
			semconv.GenAIUsageInputTokens(m.PromptTokens),
			semconv.GenAIUsageOutputTokens(m.OutputTokens),
			attrNumCtx.Int(m.NumCtx),
			attrEstimate.Int(m.PromptEstimate),
		)
		if m.DoneReason != "" {
			attrs = append(attrs, semconv.GenAIResponseFinishReasons(m.DoneReason))
		}
	}
	attrs = append(attrs, serverAttrs(m.Server)...)
	parent := t.parentOf(ev)
	start := startIn(parent, ev.Time, m.Duration)
	_, span := t.tracer.Start(parent.ctx, "chat "+m.Model, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if m.Err != "" {
		span.SetAttributes(semconv.ErrorTypeOther)
		span.SetStatus(codes.Error, m.Err)
	}
	span.End(trace.WithTimestamp(ev.Time))
}

// serverAttrs are server.address and server.port of a base URL.
func serverAttrs(server string) []attribute.KeyValue {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return nil
	}
	attrs := []attribute.KeyValue{semconv.ServerAddress(u.Hostname())}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ServerPort(n))
	}
	return attrs
}

func (t *tracker) toolCall(ev report.Event) {
	tc := ev.Tool
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(tc.Name),
		attrResultSize.Int(tc.ResultSize),
		attrTruncated.Bool(tc.Truncated),
	}
	if tc.Server != "" {
		attrs = append(attrs, attrToolServer.String(tc.Server), attrToolTool.String(tc.Tool))
	}
	parent := t.parentOf(ev)
	start := startIn(parent, ev.Time, tc.Duration)
	_, span := t.tracer.Start(parent.ctx, "execute_tool "+tc.Name, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	switch {
	case tc.Err != "":
		span.SetAttributes(semconv.ErrorTypeOther)
		span.SetStatus(codes.Error, tc.Err)
	case tc.IsError:
		// The tool answered with an error the model reads; the call
		// itself worked.
		span.SetAttributes(semconv.ErrorTypeKey.String("tool_error"))
	}
	span.End(trace.WithTimestamp(ev.Time))
}

func (t *tracker) itemEnd(ev report.Event) {
	key := itemKey{ev.Stage, ev.Index}
	it, ok := t.items[key]
	if !ok {
		// Kept from an interrupted run: no work now, a point in time.
		t.itemStart(ev)
		it = t.items[key]
		it.span.SetAttributes(attrItemReused.Bool(true))
	}
	it.span.End(trace.WithTimestamp(ev.Time))
	delete(t.items, key)
}

// note records a moment of a stage (a Verify result, a script's output,
// the gate) as an event on its span.
func (t *tracker) note(ev report.Event) {
	target := t.run
	if ev.Stage != "" {
		target = t.stageSpan(ev)
	}
	if target == nil {
		target = t.runSpan(ev)
	}
	attrs := []attribute.KeyValue{attribute.String("icm.message", ev.Message)}
	if ev.Status != "" {
		attrs = append(attrs, attrStatus.String(ev.Status))
	}
	target.span.AddEvent(ev.Kind, trace.WithTimestamp(ev.Time), trace.WithAttributes(attrs...))
}

func (t *tracker) stageEnd(ev report.Event) {
	s := t.stageSpan(ev)
	for key, it := range t.items {
		if key.stage == ev.Stage {
			// The stage stopped (an error elsewhere, a cancel) before the
			// item finished.
			it.span.SetStatus(codes.Error, "the stage ended before the item finished")
			it.span.End(trace.WithTimestamp(ev.Time))
			delete(t.items, key)
		}
	}
	s.span.SetAttributes(attrStatus.String(ev.Status), attrInputTotal.Int(ev.PromptTokens), attrOutputTotal.Int(ev.OutputTokens))
	if ev.Err != "" {
		s.span.SetAttributes(semconv.ErrorTypeOther)
		s.span.SetStatus(codes.Error, ev.Err)
	}
	s.span.End(trace.WithTimestamp(ev.Time))
	delete(t.stages, ev.Stage)
}

func (t *tracker) runEnd(ev report.Event) {
	r := t.runSpan(ev)
	for name := range t.stages {
		t.stageEnd(report.Event{Kind: report.EventStageEnd, Stage: name, Time: ev.Time, Status: "interrupted", Err: "the run ended before the stage finished"})
	}
	r.span.SetAttributes(attrInputTotal.Int(ev.PromptTokens), attrOutputTotal.Int(ev.OutputTokens))
	if ev.Err != "" {
		r.span.SetStatus(codes.Error, ev.Err)
	}
	r.span.End(trace.WithTimestamp(ev.Time))
	t.run = nil
}
