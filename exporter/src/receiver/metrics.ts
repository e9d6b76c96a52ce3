// The receiver's own metrics, as a receiver of the OpenTelemetry Collector reports its own
// (obsreport): spans by what became of them, requests refused before their spans were read, and
// the in-flight bytes of its budget. What a stored write derives from the steps is the journey
// writer's (journeys/writer.ts, journeys/metrics.ts).
import { Counter, Gauge, type Registry } from 'prom-client';
import { REFUSAL_REASONS, counter, gauge } from '../metrics/catalogue.js';

/** Why a request to /v1/traces was refused before its spans were looked at (the catalogue's). */
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
    this.spans = new Counter({ ...counter('acktrail_spans_received_total'), registers });
    for (const outcome of ['accepted', 'ignored', 'rejected']) this.spans.inc({ outcome }, 0);
    this.refusals = new Counter({ ...counter('acktrail_ingest_refused_total'), registers });
    for (const reason of REFUSAL_REASONS) this.refusals.inc({ reason }, 0);
    this.inflightBytes = new Gauge({ ...gauge('acktrail_ingest_inflight_bytes'), registers });
  }

  spansReceived(outcome: SpanOutcome, count = 1): void {
    this.spans.inc({ outcome }, count);
  }

  refused(reason: RefusalReason): void {
    this.refusals.inc({ reason });
  }
}
