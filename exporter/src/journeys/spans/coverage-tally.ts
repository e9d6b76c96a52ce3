// What each span lets journeys read, counted per batch (a request body): per service, stage and
// instrumentation (profiles/), spans, how many carried an event id, which facts journeys rely on
// were missing (each with the line of code that closes the gap for that instrumentation), and how
// many deliveries were seen settled. Plain data, no metrics: a decoding worker counts its body's
// spans here (convert.ts) and Coverage (coverage.ts) adds the sums on the event loop.
import { ATTR, EVENT_ID_ATTRIBUTES } from '@acktrail/conventions';
import type { Stage } from '../model/steps.js';
import { first, readSpan, type Gap, type ProfileId, type Reading } from '../profiles/index.js';
import type { ReceivedSpan } from '../profiles/index.js';
import { thresholdOf } from './adjusted-count.js';

export interface Check {
  /** The name the API and the metric's `attribute` label use. */
  attribute: Gap | 'aggregate_id';
  /** Where journeys read it from. */
  keys: readonly string[];
  /** Journeys work without it; only some views need it. */
  optional: boolean;
  has(span: ReceivedSpan, r: Reading): boolean;
}

const present = (keys: readonly string[]) => (span: ReceivedSpan) =>
  first(span.attributes, keys) !== undefined;

const EVENT_ID: Check = {
  attribute: 'event_id',
  keys: EVENT_ID_ATTRIBUTES,
  optional: false,
  // The standard attributes, or the id its instrumentation writes (MassTransit's).
  has: (_span, r) => r.eventId !== undefined,
};
const QUEUE: Check = {
  attribute: 'queue',
  keys: [ATTR.queue],
  optional: false,
  // Only a queue the span names: an exchange is never taken for one.
  has: (_span, r) => r.queue !== null,
};
const ATTEMPT_KEYS = [ATTR.redelivered, ATTR.attempt];
const ATTEMPT: Check = {
  attribute: 'delivery_attempt',
  keys: ATTEMPT_KEYS,
  optional: false,
  has: present(ATTEMPT_KEYS),
};
const AGGREGATE_ID: Check = {
  attribute: 'aggregate_id',
  keys: [ATTR.aggregateId],
  optional: true,
  has: present([ATTR.aggregateId]),
};

/** The one optional gap, the same for every instrumentation. */
export const AGGREGATE_FIX = `set ${ATTR.aggregateId} (or a header @acktrail/instrument maps to it) to look events up by aggregate and check their order; not needed otherwise`;

const CHECKS: Partial<Record<Stage, readonly Check[]>> = {
  publish: [EVENT_ID, AGGREGATE_ID],
  'outbox.publish': [EVENT_ID, AGGREGATE_ID],
  deliver: [EVENT_ID, QUEUE, ATTEMPT, AGGREGATE_ID],
  settle: [EVENT_ID],
};

export interface Row {
  service: string;
  stage: Stage;
  /** The instrumentation that wrote the spans (profiles/). */
  sdk: ProfileId;
  spans: number;
  withEventId: number;
  /** Deliveries whose settle was seen (consumer span ended by a settle, or a settle span). */
  settles: number;
  /** Check.attribute -> spans without it. */
  missing: Map<string, number>;
  /** Spans the service's sampler dropped that acktrail's recording sampler sent (recorded_only=true). */
  recordedOnly: number;
  /** Spans with a sampling threshold in their tracestate (ot=th): the service samples. */
  withThreshold: number;
}

/**
 * What a batch of spans adds to the coverage, per service (as the spans name it), stage and
 * instrumentation: plain data, so that a decoding worker can count its body's spans and the event
 * loop only adds the sums (a counter increment per row, not per span).
 */
export type CoverageTally = (Omit<Row, 'missing'> & { missing: [string, number][] })[];

/** The row of (service, stage, instrumentation) in `rows`, made empty the first time. */
export function rowIn(rows: Map<string, Row>, service: string, stage: Stage, sdk: ProfileId): Row {
  const key = `${service}\u0000${stage}\u0000${sdk}`;
  let row = rows.get(key);
  if (!row) {
    row = {
      service,
      stage,
      sdk,
      spans: 0,
      withEventId: 0,
      settles: 0,
      missing: new Map(),
      recordedOnly: 0,
      withThreshold: 0,
    };
    rows.set(key, row);
  }
  return row;
}

/** Check.attribute -> the check. */
export const BY_ATTRIBUTE = new Map(
  Object.values(CHECKS)
    .flat()
    .map((c) => [c.attribute, c]),
);

/** Whether a consumer span says how its delivery was settled (a timeout or close is not one). */
const settled = (r: Reading): boolean => r.settle?.kind === 'outcome';

/**
 * Counts the spans, whether or not they became journey steps (`readings`: each span as its profile
 * reads it, where the caller has them).
 */
export function tallyCoverage(
  spans: readonly ReceivedSpan[],
  readings: readonly Reading[] = spans.map(readSpan),
): CoverageTally {
  const rows = new Map<string, Row>();
  const rowOf = (service: string, stage: Stage, sdk: ProfileId) => rowIn(rows, service, stage, sdk);
  spans.forEach((span, i) => {
    const r = readings[i]!;
    // A handler span is part of its delivery: the receive is counted, not it.
    if (r.stage === null || r.handler) return;
    const service = span.service || 'unknown';
    const row = rowOf(service, r.stage, r.profile.id);
    row.spans++;
    if (EVENT_ID.has(span, r)) row.withEventId++;
    if (span.attributes.get(ATTR.recordedOnly) === true) row.recordedOnly++;
    if (span.traceState !== '' && thresholdOf(span.traceState) !== null) row.withThreshold++;
    for (const check of CHECKS[r.stage] ?? [])
      if (!check.has(span, r))
        row.missing.set(check.attribute, (row.missing.get(check.attribute) ?? 0) + 1);
    // A settle span counts for the deliveries of its service.
    if (r.stage === 'settle') rowOf(service, 'deliver', r.profile.id).settles++;
    else if (r.stage === 'deliver' && settled(r)) row.settles++;
  });
  return [...rows.values()].map((r) => ({ ...r, missing: [...r.missing] }));
}
