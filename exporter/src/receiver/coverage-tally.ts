// What each span lets journeys read, counted per batch (a request body): per service and stage,
// spans, how many carried an event id, which attributes journeys rely on were missing, and how
// many deliveries were seen settled. Plain data, no metrics: a decoding worker counts its body's
// spans here (convert.ts) and Coverage (coverage.ts) adds the sums on the event loop.
import { ATTR, EVENT_ID_ATTRIBUTES, namesOf, SEMCONV } from '@acktrail/conventions';
import type { Stage } from '../journeys/steps.js';
import { settleFromStatus } from '../journeys/model/index.js';
import { first, stageOf } from './normalize.js';
import type { ReceivedSpan } from './spans.js';

export interface Check {
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

export interface Row {
  service: string;
  stage: Stage;
  spans: number;
  withEventId: number;
  /** Deliveries whose settle was seen (consumer span ended by a settle, or a settle span). */
  settles: number;
  /** Check.attribute -> spans without it. */
  missing: Map<string, number>;
}

/**
 * What a batch of spans adds to the coverage, per service (as the spans name it) and stage: plain
 * data, so that a decoding worker can count its body's spans and the event loop only adds the
 * sums (a counter increment per row, not per span).
 */
export type CoverageTally = (Omit<Row, 'missing'> & { missing: [string, number][] })[];

/** Check.attribute -> the check. */
export const BY_ATTRIBUTE = new Map(
  Object.values(CHECKS)
    .flat()
    .map((c) => [c.attribute, c]),
);

/** Counts the spans, whether or not they became journey steps. */
export function tallyCoverage(spans: readonly ReceivedSpan[]): CoverageTally {
  const rows = new Map<string, Row>();
  const rowOf = (service: string, stage: Stage) => {
    const key = `${service}\u0000${stage}`;
    let row = rows.get(key);
    if (!row) {
      row = { service, stage, spans: 0, withEventId: 0, settles: 0, missing: new Map() };
      rows.set(key, row);
    }
    return row;
  };
  for (const span of spans) {
    const stage = stageOf(span, span.attributes);
    if (stage === null) continue;
    const service = span.service || 'unknown';
    const row = rowOf(service, stage);
    row.spans++;
    if (EVENT_ID.has(span)) row.withEventId++;
    for (const check of CHECKS[stage] ?? [])
      if (!check.has(span))
        row.missing.set(check.attribute, (row.missing.get(check.attribute) ?? 0) + 1);
    // A settle span counts for the deliveries of its service.
    if (stage === 'settle') rowOf(service, 'deliver').settles++;
    else if (stage === 'deliver' && settles(span)) row.settles++;
  }
  return [...rows.values()].map((r) => ({ ...r, missing: [...r.missing] }));
}

/**
 * Whether a consumer span stands for its own settle: it says its outcome, or it is the stock
 * instrumentation's and ended by a settle (not a timeout or a closed channel), as normalise() reads it.
 */
const settles = (span: ReceivedSpan): boolean =>
  span.attributes.has(ATTR.settleOutcome) ||
  (!span.attributes.has(ATTR.stage) && settleFromStatus(span) !== null);
