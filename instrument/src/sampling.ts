// Journeys whatever the trace sampler. An app that samples its traces (OTEL_TRACES_SAMPLER=
// parentbased_traceidratio, say) drops the messaging spans of most messages, and acktrail would
// answer "not found" for them and count a fraction of their rejects. Two pieces keep every
// message's steps while the app's trace backend still receives only its sample:
// - journeySampler(app's sampler): a span acktrail reads (a producer or consumer span, one with
//   messaging.system, an acktrail stage or an event id at its start) that the app's sampler drops
//   is recorded all the same (RECORD, not sampled: the trace flags it propagates stay the app's);
//   every other decision is the app's.
// - JourneySpanProcessor: exports those recorded-but-unsampled spans to acktrail alone, marked
//   acktrail.trace.recorded_only=true; the app's own processors skip them, as they skip every
//   unsampled span. The sampled ones reach acktrail the app's way (or with `sampled: true`, here).
import type { Attributes, Context, Link, SpanKind } from '@opentelemetry/api';
import { SpanKind as Kind, TraceFlags } from '@opentelemetry/api';
import { getNumberFromEnv, getStringFromEnv } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  createAlwaysRecordSampler,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { ATTR, EVENT_ID_ATTRIBUTES, SEMCONV } from '@acktrail/conventions';

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, as the OpenTelemetry SDK
 * environment specification defines them (parentbased_always_on when unset). An unknown name is
 * the default, with a warning, as every SDK treats it.
 */
export function samplerFromEnv(warn: (message: string) => void = () => {}): Sampler {
  const name = getStringFromEnv('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  const ratio = () => {
    const arg = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
    if (arg === undefined) return 1;
    if (arg < 0 || arg > 1) {
      warn(`OTEL_TRACES_SAMPLER_ARG=${arg} is not in [0, 1]: 1 is used`);
      return 1;
    }
    return arg;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      warn(`OTEL_TRACES_SAMPLER=${name} is not a sampler this SDK knows: parentbased_always_on`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

let configured = false;
/** Said by withJourneys: this process's SDK was built with journeySampler and the processor. */
export const markJourneysConfigured = (): void => {
  configured = true;
};
export const journeysConfigured = (): boolean => configured;

/** Whether a span starting with these facts is one acktrail reads (a journey's step). */
export function isJourneySpan(kind: SpanKind, attributes: Attributes): boolean {
  return (
    kind === Kind.PRODUCER ||
    kind === Kind.CONSUMER ||
    attributes[SEMCONV.system] !== undefined ||
    attributes[ATTR.stage] !== undefined ||
    EVENT_ID_ATTRIBUTES.some((name) => attributes[name] !== undefined)
  );
}

/**
 * `app`'s decisions, except that a journey span it drops is recorded (not sampled): see above.
 */
export function journeySampler(app: Sampler): Sampler {
  const recording = createAlwaysRecordSampler(app);
  return {
    shouldSample(
      context: Context,
      traceId: string,
      spanName: string,
      spanKind: SpanKind,
      attributes: Attributes,
      links: Link[],
    ): SamplingResult {
      const sampler = isJourneySpan(spanKind, attributes) ? recording : app;
      return sampler.shouldSample(context, traceId, spanName, spanKind, attributes, links);
    },
    toString: () => `JourneySampler{${app.toString()}}`,
  };
}

const isSampled = (span: ReadableSpan) =>
  (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;

/**
 * A recorded-but-unsampled span as the batch processor and OTLP exporter take it: flagged sampled
 * (the processor exports nothing else) and carrying acktrail.trace.recorded_only=true, which is what
 * acktrail reads as "the app's sampler dropped this trace".
 */
function asExported(span: ReadableSpan): ReadableSpan {
  const context = span.spanContext();
  const exported = { ...context, traceFlags: context.traceFlags | TraceFlags.SAMPLED };
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => exported,
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: { ...span.attributes, [ATTR.recordedOnly]: true },
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/**
 * OTLP/HTTP protobuf to acktrail: `endpoint` is its base URL (/v1/traces is appended); without it,
 * the environment's OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or _ENDPOINT (and _HEADERS).
 */
export function acktrailExporter(
  endpoint?: string,
  headers?: Record<string, string>,
): SpanExporter {
  return new OTLPTraceExporter({
    ...(endpoint ? { url: `${endpoint.replace(/\/$/, '')}/v1/traces` } : {}),
    ...(headers ? { headers } : {}),
  });
}

export interface JourneyProcessorOptions {
  /** Where acktrail receives spans (an OTLP exporter to its /v1/traces). */
  exporter: SpanExporter;
  /**
   * Sampled spans too: for an app whose own exporters do not reach acktrail. Off by default,
   * where the app's pipeline brings its sample to acktrail (acktrail stores a span once either
   * way: a step is keyed by its trace, span and time).
   */
  sampled?: boolean;
  scheduledDelayMillis?: number;
}

/** Exports the journey spans the app's sampler dropped (and the sampled ones, if asked) to acktrail. */
export class JourneySpanProcessor implements SpanProcessor {
  private readonly batch: BatchSpanProcessor;
  private readonly sampled: boolean;

  constructor(options: JourneyProcessorOptions) {
    this.sampled = options.sampled ?? false;
    this.batch = new BatchSpanProcessor({
      exporter: options.exporter,
      scheduledDelayMillis: options.scheduledDelayMillis ?? 1000,
      maxExportBatchSize: 1024,
      maxQueueSize: 16_384,
    });
  }

  onStart(_span: Span, _parentContext: Context): void {
    // nothing to do when a span starts
  }

  onEnd(span: ReadableSpan): void {
    // Unsampled and recorded: what journeySampler kept, or what another sampler recorded.
    if (!isSampled(span)) {
      if (isJourneySpan(span.kind, span.attributes)) this.batch.onEnd(asExported(span));
    } else if (this.sampled) this.batch.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.batch.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.batch.shutdown();
  }
}
