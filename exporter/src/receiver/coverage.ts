// Instrumentation coverage: for every span received, what journeys could read from it. Per
// service and stage: spans, how many carried an event id, and which attributes journeys rely on
// were missing, each with the one-line fix. Counted since the exporter started, in memory (served
// at GET /api/coverage) and as metrics (acktrail_coverage_*). Services are a bounded label.
import { ATTR, EVENT_ID_ATTRIBUTES, namesOf, SEMCONV } from '@acktrail/conventions';
import { Counter, type Registry } from 'prom-client';
import { BoundedLabel } from '../labels.js';
import type { Stage } from '../journeys/steps.js';
import { settleFromStatus } from '../journeys/model/index.js';
import { first, stageOf } from './normalize.js';
import type { ReceivedSpan } from './spans.js';

interface Check {
  /** The name the API and the metric's `attribute` label use. */
  attribute: string;
  /** Where journeys read it from. */
  keys: readonly string[];
  /** What it is for, and how to set it: one line. */
  fix: string;
  /** Journeys work without it; only some views need it. */
  optional: boolean;
  has(span: ReceivedSpan): boolean;
}

const present = (keys: readonly string[]) => (span: ReceivedSpan) =>
  first(span.attributes, keys) !== undefined;

const EVENT_ID: Check = {
  attribute: 'event_id',
  keys: EVENT_ID_ATTRIBUTES,
  fix: 'set messageId when publishing (amqplib: publish(exchange, key, body, { messageId })); the stock instrumentation records it as messaging.message_id on both sides',
  optional: false,
  has: present(EVENT_ID_ATTRIBUTES),
};
const QUEUE_KEYS = [...namesOf(ATTR.queue), ...namesOf(SEMCONV.destination)];
const QUEUE: Check = {
  attribute: 'queue',
  keys: QUEUE_KEYS,
  fix: `name the queue on the consumer span (${ATTR.queue}, ${SEMCONV.destination}, or a span name "<queue> process" as the stock amqplib instrumentation writes it): without it a reject cannot be told dead-lettered from discarded`,
  optional: false,
  has: (span) =>
    span.attributes.has(ATTR.queue) || / process$/.test(span.name) || present(QUEUE_KEYS)(span),
};
const ATTEMPT_KEYS = [ATTR.redelivered, ATTR.attempt];
const ATTEMPT: Check = {
  attribute: 'delivery_attempt',
  keys: ATTEMPT_KEYS,
  fix: `record the broker's redelivered flag on the consumer span (span.setAttribute('${ATTR.redelivered}', msg.fields.redelivered), or @acktrail/instrument): without it a redelivery after a crash is invisible in the journey`,
  optional: false,
  has: present(ATTEMPT_KEYS),
};
const AGGREGATE_ID: Check = {
  attribute: 'aggregate_id',
  keys: [ATTR.aggregateId],
  fix: `set ${ATTR.aggregateId} (or a header @acktrail/instrument maps to it) to look events up by aggregate and check their order; not needed otherwise`,
  optional: true,
  has: present([ATTR.aggregateId]),
};

const CHECKS: Partial<Record<Stage, readonly Check[]>> = {
  publish: [EVENT_ID, AGGREGATE_ID],
  'outbox.publish': [EVENT_ID, AGGREGATE_ID],
  deliver: [EVENT_ID, QUEUE, ATTEMPT, AGGREGATE_ID],
  settle: [EVENT_ID],
};

/** The fix for deliveries with no settle seen: acks that journeys never hear of. */
const SETTLE_FIX =
  "trace the settle: the stock amqplib consumer span ends on ack, nack or reject (keep the instrumentation's consumeTimeoutMs above your handler's time), or @acktrail/instrument writes a settle span; without it no delivery reads as done";

interface Row {
  service: string;
  stage: Stage;
  spans: number;
  withEventId: number;
  /** Deliveries whose settle was seen (consumer span ended by a settle, or a settle span). */
  settles: number;
  missing: Map<Check, number>;
}

export interface CoverageGap {
  attribute: string;
  /** Attribute names journeys read it from, first found. */
  keys: readonly string[];
  spans: number;
  optional: boolean;
  fix: string;
}

export interface CoverageRow {
  service: string;
  stage: Stage;
  spans: number;
  withEventId: number;
  gaps: CoverageGap[];
}

export interface CoverageReport {
  since: string;
  rows: CoverageRow[];
}

export class Coverage {
  private readonly rows = new Map<string, Row>();
  private readonly since = new Date();
  private readonly services: BoundedLabel;
  private readonly spans: Counter<'service' | 'stage'>;
  private readonly withEventId: Counter<'service' | 'stage'>;
  private readonly missing: Counter<'service' | 'stage' | 'attribute'>;

  constructor(registry: Registry, maxServices = 100) {
    const registers = [registry];
    this.services = new BoundedLabel(maxServices, { registry, label: 'service' });
    this.spans = new Counter({
      name: 'acktrail_coverage_spans_total',
      help: 'Spans received that stand for a journey stage, by service and stage, with or without an event id (GET /api/coverage).',
      labelNames: ['service', 'stage'],
      registers,
    });
    this.withEventId = new Counter({
      name: 'acktrail_coverage_spans_with_event_id_total',
      help: 'Of acktrail_coverage_spans_total, the spans that carried an event id.',
      labelNames: ['service', 'stage'],
      registers,
    });
    this.missing = new Counter({
      name: 'acktrail_coverage_attribute_missing_total',
      help: 'Spans without an attribute journeys rely on, by service, stage and attribute (event_id, queue, delivery_attempt, aggregate_id); GET /api/coverage says how to set each.',
      labelNames: ['service', 'stage', 'attribute'],
      registers,
    });
  }

  /** Counts one span, whether or not it became a journey step. */
  observe(span: ReceivedSpan): void {
    const stage = stageOf(span, span.attributes);
    if (stage === null) return;
    const service = this.services.of(span.service || 'unknown');
    const key = `${service}\u0000${stage}`;
    let row = this.rows.get(key);
    if (!row) {
      row = { service, stage, spans: 0, withEventId: 0, settles: 0, missing: new Map() };
      this.rows.set(key, row);
    }
    row.spans++;
    this.spans.inc({ service, stage });
    if (EVENT_ID.has(span)) {
      row.withEventId++;
      this.withEventId.inc({ service, stage });
    }
    for (const check of CHECKS[stage] ?? []) {
      if (check.has(span)) continue;
      row.missing.set(check, (row.missing.get(check) ?? 0) + 1);
      this.missing.inc({ service, stage, attribute: check.attribute });
    }
    if (stage === 'settle') this.settleRowOf(service).settles++;
    else if (stage === 'deliver' && settles(span)) row.settles++;
  }

  /** A settle span counts for the deliveries of its service. */
  private settleRowOf(service: string): Row {
    const key = `${service}\u0000deliver`;
    let row = this.rows.get(key);
    if (!row) {
      row = { service, stage: 'deliver', spans: 0, withEventId: 0, settles: 0, missing: new Map() };
      this.rows.set(key, row);
    }
    return row;
  }

  report(): CoverageReport {
    const rows = [...this.rows.values()]
      .filter((r) => r.spans > 0)
      .sort((a, b) => a.service.localeCompare(b.service) || a.stage.localeCompare(b.stage))
      .map((r): CoverageRow => {
        const gaps: CoverageGap[] = [...r.missing].map(([c, spans]) => ({
          attribute: c.attribute,
          keys: c.keys,
          spans,
          optional: c.optional,
          fix: c.fix,
        }));
        if (r.stage === 'deliver' && r.settles < r.spans)
          gaps.push({
            attribute: 'settle',
            keys: [ATTR.settleOutcome],
            spans: r.spans - r.settles,
            optional: false,
            fix: SETTLE_FIX,
          });
        gaps.sort((a, b) => Number(a.optional) - Number(b.optional) || b.spans - a.spans);
        return {
          service: r.service,
          stage: r.stage,
          spans: r.spans,
          withEventId: r.withEventId,
          gaps,
        };
      });
    return { since: this.since.toISOString(), rows };
  }
}

/**
 * Whether a consumer span stands for its own settle: it says its outcome, or it is the stock
 * instrumentation's and ended by a settle (not a timeout or a closed channel), as normalise() reads it.
 */
const settles = (span: ReceivedSpan): boolean =>
  span.attributes.has(ATTR.settleOutcome) ||
  (!span.attributes.has(ATTR.stage) && settleFromStatus(span) !== null);
