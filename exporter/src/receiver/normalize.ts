// Spans -> journey steps. Any OTel SDK works: a span's stage is its `acktrail.stage` or, without
// one, what its messaging attributes and kind say (a producer span is a `publish`, a consumer
// span a `deliver`); old and new semantic-convention names are both read. A consumer span of the
// stock amqplib instrumentation ends when the message is settled, with a status that says how
// (an ack leaves it unset; "nack called on message without requeue" and the like): without
// acktrail's own settle span, its end becomes the journey's settle step (SETTLE below).
// Only an allow-list of attributes is kept, and every kept string goes through scrub() (bounded
// first, e-mail addresses masked): never message bodies or personal data (docs/api.md, "What is
// stored").
import { createHash } from 'node:crypto';
import {
  ATTR,
  EVENT_ID_ATTRIBUTES,
  SEMCONV,
  STAGES,
  namesOf,
  type SettleOutcome,
} from '@acktrail/conventions';
import type { AttributeValue, ReceivedSpan } from './spans.js';
import { bounded, scrub } from '../journeys/store/scrub.js';
import type { Stage, Step } from '../journeys/steps.js';
import { settleFromStatus, stepAnomaly } from '../journeys/model/index.js';
import type { QueueLookup } from '../broker/catalog.js';

/** Attributes kept, each read from its current name first, then its older names. */
const KEPT: [string, readonly string[]][] = [
  ATTR.aggregateVersion,
  ATTR.queue,
  ATTR.redelivered,
  ATTR.attempt,
  ATTR.settleOutcome,
  ATTR.deadLetterReason,
  ATTR.publishOutcome,
  ATTR.result,
  ATTR.retryDelayMs,
  ATTR.providerName,
  ATTR.providerKey,
  ATTR.providerOutcome,
  SEMCONV.system,
  SEMCONV.operationType,
  SEMCONV.operationName,
  SEMCONV.destination,
  SEMCONV.routingKey,
  SEMCONV.deliveryTag,
  SEMCONV.httpStatus,
  SEMCONV.errorType,
].map((name) => [name, namesOf(name)]);

/** Set on a settle step that acktrail derived from the end of a consumer span. */
export const DERIVED_SETTLE = 'acktrail.settle.derived';

const EVENT_ID_SHAPE = /^[\x21-\x7e]{1,128}$/;
const STAGE_SET = new Set<string>(STAGES);
const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const PRODUCER = 4;
const CONSUMER = 5;

export function first(
  attrs: Map<string, AttributeValue>,
  names: readonly string[],
): AttributeValue | undefined {
  for (const n of names) {
    const v = attrs.get(n);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The journey stage a span stands for, whatever instrumentation wrote it; null: none. */
export function stageOf(span: ReceivedSpan, attrs: Map<string, AttributeValue>): Stage | null {
  const explicit = attrs.get(ATTR.stage);
  if (typeof explicit === 'string' && STAGE_SET.has(explicit)) return explicit as Stage;
  if (attrs.has(ATTR.providerName)) return 'provider.call';
  const op = String(first(attrs, namesOf(SEMCONV.operationType)) ?? '');
  const opName = String(attrs.get(SEMCONV.operationName) ?? '');
  if (op === 'settle' || ['ack', 'nack', 'reject'].includes(opName)) return 'settle';
  // A publish is an outbox's only when its instrumentation says so (acktrail.stage).
  if (['publish', 'send', 'create'].includes(op) || (op === '' && span.kind === PRODUCER))
    return 'publish';
  if (['process', 'receive', 'deliver'].includes(op) || (op === '' && span.kind === CONSUMER))
    return 'deliver';
  return null;
}

export type Normalised =
  { kind: 'steps'; steps: Step[] } | { kind: 'ignored' } | { kind: 'rejected'; reason: string };

export interface Window {
  /** Oldest and newest accepted start, microseconds since the epoch. */
  fromUs: number;
  toUs: number;
}

const derivedSpanId = (spanId: string) =>
  createHash('sha256').update(`${spanId}:settle`).digest('hex').slice(0, 16);

/**
 * The settle step of a consumer span that stands for its own settle: one that says its outcome
 * (acktrail.settle.outcome), or one of the stock instrumentation's (no acktrail.stage: acktrail's
 * instrumentation writes a settle span of its own).
 */
function settleOf(span: ReceivedSpan, deliver: Step, queues: QueueLookup): Step | null {
  const explicit = deliver.attrs[ATTR.settleOutcome];
  const stock = !span.attributes.has(ATTR.stage);
  const outcome =
    typeof explicit === 'string'
      ? (explicit as SettleOutcome)
      : stock
        ? settleFromStatus(span)
        : null;
  if (outcome === null) return null;
  const queue = deliver.attrs[ATTR.queue];
  const attrs: Record<string, AttributeValue> = {
    [ATTR.settleOutcome]: outcome,
    [SEMCONV.operationType]: 'settle',
    [DERIVED_SETTLE]: true,
  };
  for (const name of [ATTR.queue, SEMCONV.system, SEMCONV.deliveryTag, ATTR.result, ATTR.attempt])
    if (deliver.attrs[name] !== undefined) attrs[name] = deliver.attrs[name]!;
  return {
    ...deliver,
    timeUs: span.endUs,
    durationUs: 0,
    stage: 'settle',
    spanId: derivedSpanId(span.spanId),
    parentSpanId: span.spanId,
    name: `${outcome === 'ack' ? 'ack' : outcome === 'reject' ? 'reject' : 'nack'}${typeof queue === 'string' ? ` ${queue}` : ''}`,
    status: outcome === 'ack' ? 'unset' : 'error',
    statusMessage: outcome === 'ack' ? null : deliver.statusMessage,
    anomaly: stepAnomaly('settle', attrs, queues),
    attrs,
  };
}

/** `queues`: what the exporter knows about the queues (none: a reject's fate is unknown). */
export function normalise(
  span: ReceivedSpan,
  window: Window,
  queues: QueueLookup = () => null,
): Normalised {
  const attrs = span.attributes;
  const rawId = first(attrs, EVENT_ID_ATTRIBUTES);
  const stage = stageOf(span, attrs);
  if (rawId === undefined || stage === null) return { kind: 'ignored' };

  // Cut before the shape check reads it: a 1 MB id is rejected after 129 characters.
  const eventId = bounded(String(rawId), 128);
  if (!EVENT_ID_SHAPE.test(eventId))
    return { kind: 'rejected', reason: 'event_id must be 1-128 printable ASCII characters' };
  if (!TRACE_ID.test(span.traceId) || span.traceId === ZERO_TRACE)
    return { kind: 'rejected', reason: 'traceId must be 16 bytes, not all zero' };
  if (!SPAN_ID.test(span.spanId) || span.spanId === ZERO_SPAN)
    return { kind: 'rejected', reason: 'spanId must be 8 bytes, not all zero' };
  if (!Number.isFinite(span.startUs) || !Number.isFinite(span.endUs) || span.endUs < span.startUs)
    return { kind: 'rejected', reason: 'start and end times must be set, end not before start' };
  if (span.startUs < window.fromUs || span.startUs > window.toUs)
    return { kind: 'rejected', reason: 'start time outside the retention window' };

  const kept: Record<string, AttributeValue> = {};
  for (const [name, sources] of KEPT) {
    const v = first(attrs, sources);
    if (v === undefined) continue;
    // A version is kept only as a whole number: the store compares versions numerically.
    if (name === ATTR.aggregateVersion && !Number.isSafeInteger(v)) continue;
    kept[name] = typeof v === 'string' ? scrub(v) : v;
  }
  // The stock consumer span names its queue only in its name: "<queue> process".
  if (stage === 'deliver' && kept[ATTR.queue] === undefined && span.name.endsWith(' process'))
    kept[ATTR.queue] = scrub(span.name.slice(0, -' process'.length));
  const aggregateId = attrs.get(ATTR.aggregateId);
  const aggregateType = attrs.get(ATTR.aggregateType);
  const step: Step = {
    eventId,
    timeUs: span.startUs,
    durationUs: span.endUs - span.startUs,
    stage,
    service: scrub(span.service),
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: SPAN_ID.test(span.parentSpanId) ? span.parentSpanId : null,
    name: scrub(span.name),
    status: span.statusCode === 2 ? 'error' : span.statusCode === 1 ? 'ok' : 'unset',
    statusMessage: span.statusMessage ? scrub(span.statusMessage) : null,
    aggregateType: aggregateType === undefined ? null : scrub(String(aggregateType)),
    aggregateId: aggregateId === undefined ? null : scrub(String(aggregateId)),
    anomaly: stepAnomaly(stage, kept, queues),
    attrs: kept,
  };
  const settle = stage === 'deliver' ? settleOf(span, step, queues) : null;
  return { kind: 'steps', steps: settle ? [step, settle] : [step] };
}
