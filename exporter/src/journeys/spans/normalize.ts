// Spans -> journey steps. Any OTel SDK works: a span is read as the instrumentation that wrote it
// writes it (profiles/): its stage, where the message went and how it was settled, only as far as
// the span records them. A consumer span that stands for its own settle (the stock amqplib
// instrumentation ends it on ack, nack or reject; any span carrying acktrail.settle.outcome)
// becomes a delivery and a settle step; one whose instrumentation records no settle stays a
// delivery whose settle is not recorded, never an ack.
// A span without an event id still belongs to its message: its journey is keyed by the trace
// context the instrumentation propagated (messageKeys below), so that Java's, Spring's and other
// spans without a message id are found by their trace id.
// Only an allow-list of attributes is kept, and every kept string goes through scrub() (bounded
// first, e-mail addresses masked): never message bodies or personal data (docs/api.md, "What is
// stored").
import { createHash } from 'node:crypto';
import { ATTR, EVENT_ID_SHAPE, SEMCONV, namesOf } from '@acktrail/conventions';
import type { AttributeValue, ReceivedSpan } from '../profiles/index.js';
import { bounded, scrub } from '../model/scrub.js';
import { STEP_ATTR, type Stage, type Step } from '../model/steps.js';
import { stepAnomaly } from '../model/index.js';
import type { QueueLookup } from '../../broker/topology.js';
import { first, readSpan, type Reading } from '../profiles/index.js';
import { batchKeysOf, contextKey, journeyKeyOf, messageKeyOf } from './message-keys.js';
import { adjustedCount } from './adjusted-count.js';

export { first };

/** Attributes kept, each read from its current name first, then its older names. */
const KEPT: [string, readonly string[]][] = [
  ATTR.aggregateVersion,
  ATTR.attempt,
  ATTR.settleOutcome,
  ATTR.deadLetterReason,
  ATTR.publishOutcome,
  ATTR.result,
  ATTR.retryDelayMs,
  ATTR.providerName,
  ATTR.providerKey,
  ATTR.providerOutcome,
  ATTR.recordedOnly,
  SEMCONV.system,
  SEMCONV.operationType,
  SEMCONV.operationName,
  SEMCONV.deliveryTag,
  SEMCONV.httpStatus,
  SEMCONV.errorType,
].map((name) => [name, namesOf(name)]);

/** Set on a settle step that acktrail derived from the end of a consumer span. */
export const DERIVED_SETTLE = STEP_ATTR.derivedSettle;

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The journey stage a span stands for, whatever instrumentation wrote it; null: none. */
export function stageOf(span: ReceivedSpan): Stage | null {
  return readSpan(span).stage;
}

export type Normalised =
  | {
      kind: 'steps';
      steps: Step[];
      /** Its tracestate claimed an adjusted count past the bound: counted as 1 (adjusted-count.ts). */
      thresholdRefused: boolean;
    }
  | { kind: 'ignored' }
  | { kind: 'rejected'; reason: string };

export interface Window {
  /** Oldest and newest accepted start, microseconds since the epoch. */
  fromUs: number;
  toUs: number;
  /** The adjusted count a span may claim (journeys.maxAdjustedCount; DEFAULT_MAX_ADJUSTED_COUNT). */
  maxAdjustedCount?: number;
  /**
   * Steps one body may store, each message of a batch receive and each derived settle counted
   * (journeys.maxStepsPerRequest); past it, spans are rejected (convert.ts). None: no bound.
   */
  maxSteps?: number;
}

const derivedSpanId = (spanId: string, what = 'settle') =>
  createHash('sha256').update(`${spanId}:${what}`).digest('hex').slice(0, 16);

/**
 * A batch delivery (one span, many linked messages) as one delivery step per message: each in its
 * message's journey, with a span id of its own derived from the span's and the message's (a step
 * is stored once per trace, span and time), the batch span as its parent.
 */
function perMessage(step: Step, keys: string[]): Step[] {
  return keys.map((key) => ({
    ...step,
    eventId: key,
    spanId: derivedSpanId(step.spanId, key),
    parentSpanId: step.spanId,
    attrs: { ...step.attrs, [STEP_ATTR.messageKey]: key },
  }));
}

/** The settle step of a consumer span that records its own settle (Reading.settle: outcome). */
function settleOf(span: ReceivedSpan, deliver: Step, r: Reading, queues: QueueLookup): Step | null {
  if (r.settle?.kind !== 'outcome') return null;
  const outcome = r.settle.outcome;
  const queue = deliver.attrs[ATTR.queue];
  const attrs: Record<string, AttributeValue> = {
    [ATTR.settleOutcome]: outcome,
    [SEMCONV.operationType]: 'settle',
    [DERIVED_SETTLE]: true,
  };
  for (const name of [
    ATTR.queue,
    SEMCONV.system,
    SEMCONV.deliveryTag,
    ATTR.result,
    ATTR.attempt,
    STEP_ATTR.sdk,
    STEP_ATTR.adjustedCount,
  ])
    if (deliver.attrs[name] !== undefined) attrs[name] = deliver.attrs[name]!;
  return {
    ...deliver,
    timeUs: span.endUs,
    durationUs: 0,
    stage: 'settle',
    spanId: derivedSpanId(deliver.spanId),
    parentSpanId: deliver.spanId,
    name: `${outcome === 'ack' ? 'ack' : outcome === 'reject' ? 'reject' : 'nack'}${typeof queue === 'string' ? ` ${queue}` : ''}`,
    status: outcome === 'ack' ? 'unset' : 'error',
    statusMessage: outcome === 'ack' ? null : deliver.statusMessage,
    anomaly: stepAnomaly('settle', attrs, queues),
    attrs,
  };
}

/**
 * The allow-listed attributes, and what the profile read of the span, under their current names;
 * `thresholdRefused`: its adjusted count was past `maxAdjusted` (kept as none: 1).
 */
function keptAttributes(
  span: ReceivedSpan,
  r: Reading,
  maxAdjusted: number | undefined,
): { kept: Record<string, AttributeValue>; thresholdRefused: boolean } {
  const attrs = span.attributes;
  const kept: Record<string, AttributeValue> = {};
  for (const [name, sources] of KEPT) {
    const v = first(attrs, sources);
    if (v === undefined) continue;
    // A version is kept only as a whole number: the store compares versions numerically.
    if (name === ATTR.aggregateVersion && !Number.isSafeInteger(v)) continue;
    kept[name] = typeof v === 'string' ? scrub(v) : v;
  }
  // The broker's redelivered flag; Micrometer's tags are strings.
  const redelivered = attrs.get(ATTR.redelivered);
  if (typeof redelivered === 'boolean') kept[ATTR.redelivered] = redelivered;
  else if (redelivered === 'true' || redelivered === 'false')
    kept[ATTR.redelivered] = redelivered === 'true';
  if (r.exchange !== null) kept[SEMCONV.destination] = scrub(r.exchange);
  if (r.routingKey !== null) kept[SEMCONV.routingKey] = scrub(r.routingKey);
  if (r.queue !== null) kept[ATTR.queue] = scrub(r.queue);
  if (r.exchangeOrQueue !== null) kept[STEP_ATTR.exchangeOrQueue] = scrub(r.exchangeOrQueue);
  if (r.settle?.kind === 'outcome' && r.stage === 'settle')
    kept[ATTR.settleOutcome] = r.settle.outcome;
  if (r.settle?.kind === 'requeue-unknown') kept[SEMCONV.operationName] = r.settle.operation;
  if (r.deadLetterReason !== null && kept[ATTR.deadLetterReason] === undefined)
    kept[ATTR.deadLetterReason] = r.deadLetterReason;
  if (r.stage !== null && r.stage !== 'provider.call') kept[STEP_ATTR.sdk] = r.profile.id;
  if (r.handler) kept[STEP_ATTR.handler] = true;
  const adjusted = adjustedCount(span.traceState, maxAdjusted);
  if (adjusted.count !== 1) kept[STEP_ATTR.adjustedCount] = adjusted.count;
  return { kept, thresholdRefused: adjusted.refused };
}

/** Why a span is refused, or null: its ids, times and window. */
function refusal(span: ReceivedSpan, window: Window): string | null {
  if (!TRACE_ID.test(span.traceId) || span.traceId === ZERO_TRACE)
    return 'traceId must be 16 bytes, not all zero';
  if (!SPAN_ID.test(span.spanId) || span.spanId === ZERO_SPAN)
    return 'spanId must be 8 bytes, not all zero';
  if (!Number.isFinite(span.startUs) || !Number.isFinite(span.endUs) || span.endUs < span.startUs)
    return 'start and end times must be set, end not before start';
  if (span.startUs < window.fromUs || span.startUs > window.toUs)
    return 'start time outside the retention window';
  return null;
}

/**
 * `queues`: what the exporter knows about the queues (none: a reject's fate is unknown); `r`: the
 * span as its profile reads it, when the caller has read it already.
 */
export function normalise(
  span: ReceivedSpan,
  window: Window,
  queues: QueueLookup = () => null,
  r: Reading = readSpan(span),
): Normalised {
  const attrs = span.attributes;
  const stage = r.stage;
  if (stage === null) return { kind: 'ignored' };
  const rawId = r.eventId;
  // Without an event id, a RabbitMQ span's journey is its message's trace context.
  const traced =
    rawId === undefined && (r.profile.id !== 'unknown' || attrs.get(SEMCONV.system) === 'rabbitmq');
  if (rawId === undefined && !traced) return { kind: 'ignored' };

  // Cut before the shape check reads it: a 1 MB id is rejected after 129 characters.
  const givenId = rawId === undefined ? null : bounded(String(rawId), 128);
  if (givenId !== null && !EVENT_ID_SHAPE.test(givenId))
    return { kind: 'rejected', reason: 'event_id must be 1-128 printable ASCII characters' };
  const refused = refusal(span, window);
  if (refused) return { kind: 'rejected', reason: refused };

  const { kept, thresholdRefused } = keptAttributes(span, r, window.maxAdjustedCount);
  const messageKey = messageKeyOf(span, stage);
  if (messageKey !== null) kept[STEP_ATTR.messageKey] = messageKey;
  const eventId =
    givenId ?? journeyKeyOf(span, stage, messageKey) ?? contextKey(span.traceId, span.spanId);
  // A message id beside another event id is kept, to be looked up by (migration 006).
  const messageId = first(attrs, namesOf(SEMCONV.messageId));
  if (messageId !== undefined && String(messageId) !== eventId)
    kept[SEMCONV.messageId] = scrub(bounded(String(messageId), 128));
  const parentSpanId = SPAN_ID.test(span.parentSpanId) ? span.parentSpanId : null;
  const aggregateId = attrs.get(ATTR.aggregateId);
  const aggregateType = attrs.get(ATTR.aggregateType);
  const step: Step = {
    eventId:
      givenId ?? journeyKeyOf(span, stage, messageKey) ?? contextKey(span.traceId, span.spanId),
    timeUs: span.startUs,
    durationUs: span.endUs - span.startUs,
    stage,
    service: scrub(span.service),
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId,
    name: scrub(span.name),
    status: span.statusCode === 2 ? 'error' : span.statusCode === 1 ? 'ok' : 'unset',
    statusMessage: span.statusMessage ? scrub(span.statusMessage) : null,
    aggregateType: aggregateType === undefined ? null : scrub(String(aggregateType)),
    aggregateId: aggregateId === undefined ? null : scrub(String(aggregateId)),
    anomaly: stepAnomaly(stage, kept, queues),
    attrs: kept,
  };
  const batch = givenId === null ? batchKeysOf(span, stage) : [];
  const deliveries = batch.length > 0 ? perMessage(step, batch) : [step];
  const steps = deliveries.flatMap((d) => {
    const settle = stage === 'deliver' ? settleOf(span, d, r, queues) : null;
    return settle ? [d, settle] : [d];
  });
  return { kind: 'steps', steps, thresholdRefused };
}
