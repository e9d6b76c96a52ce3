// The receiver's own metrics, as a receiver of the OpenTelemetry Collector reports its own
// (obsreport): spans by what became of them, requests refused before their spans were read, and
// the in-flight bytes of its budget. What a stored write derives from the steps is the journey
// writer's (journeys/writer.ts, journeys/metrics.ts).
import { Counter, Gauge, type Registry } from 'prom-client';

/** Why a request to /v1/traces was refused before its spans were looked at. */
export const REFUSAL_REASONS = [
  'unauthorized',
  'over_budget',
  'over_memory',
  'store_busy',
  'store_unavailable',
  'shutting_down',
  'idle_body',
  'slow_body',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** What became of a span: stored as a step, not a journey's (no event id or stage), invalid. */
export type SpanOutcome = 'accepted' | 'ignored' | 'rejected';

export class ReceiverMetrics {
  private readonly spans: Counter<'outcome'>;
  private readonly refusals: Counter<'reason'>;
  /** Bytes of OTLP bodies being read or worked on now (the in-flight budget in use). */
  readonly inflightBytes: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.spans = new Counter({
      name: 'acktrail_spans_received_total',
      help: 'Spans received on /v1/traces by outcome: accepted (stored as a journey step), ignored (no event_id or stage), rejected (invalid; reported in partialSuccess).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['accepted', 'ignored', 'rejected']) this.spans.inc({ outcome }, 0);
    this.refusals = new Counter({
      name: 'acktrail_ingest_refused_total',
      help: 'Requests to /v1/traces refused before their spans were read: unauthorized (401), over_budget (the in-flight byte budget), over_memory (the exporter over memory.budgetBytes), store_busy (the write queue is full), store_unavailable, shutting_down (503 with Retry-After for all but unauthorized), idle_body (nothing sent for bodyIdleTimeoutSeconds), slow_body (not whole within bodyTimeoutSeconds).',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of REFUSAL_REASONS) this.refusals.inc({ reason }, 0);
    this.inflightBytes = new Gauge({
      name: 'acktrail_ingest_inflight_bytes',
      help: 'Bytes of OTLP request bodies (after inflation) being read or worked on now; journeys.maxInflightBytes at most.',
      registers,
    });
  }

  spansReceived(outcome: SpanOutcome, count = 1): void {
    this.spans.inc({ outcome }, count);
  }

  refused(reason: RefusalReason): void {
    this.refusals.inc({ reason });
  }
}
