// Spans -> journey steps. Any OTel SDK works: old and new messaging semantic-convention names are
// both read, and a span without acktrail.stage is mapped to a stage by its messaging attributes.
// Only an allow-list of attributes is kept, and every kept string goes through scrub() (bounded
// first, e-mail addresses masked): never message bodies or personal data (docs/api.md, "What is
// stored").
import type { AttributeValue, ReceivedSpan } from '../receiver/spans.js';
import { bounded, scrub } from './scrub.js';
import { STAGES, type Stage, type Step, type StepAnomaly } from './steps.js';

/** Kept attribute -> the names it is read from, current name first. */
const KEPT: Record<string, string[]> = {
  'acktrail.aggregate_version': ['acktrail.aggregate_version'],
  'acktrail.queue': ['acktrail.queue'],
  'acktrail.delivery.redelivered': ['acktrail.delivery.redelivered'],
  'acktrail.delivery.attempt': ['acktrail.delivery.attempt'],
  'acktrail.settle.outcome': ['acktrail.settle.outcome'],
  'acktrail.dead_letter.reason': ['acktrail.dead_letter.reason'],
  'acktrail.publish.outcome': ['acktrail.publish.outcome'],
  'acktrail.result': ['acktrail.result'],
  'acktrail.retry.delay_ms': ['acktrail.retry.delay_ms'],
  'acktrail.provider.name': ['acktrail.provider.name'],
  'acktrail.provider.idempotency_key': ['acktrail.provider.idempotency_key'],
  'acktrail.provider.outcome': ['acktrail.provider.outcome'],
  'messaging.system': ['messaging.system'],
  'messaging.operation.type': ['messaging.operation.type', 'messaging.operation'],
  'messaging.operation.name': ['messaging.operation.name'],
  'messaging.destination.name': ['messaging.destination.name', 'messaging.destination'],
  'messaging.rabbitmq.destination.routing_key': [
    'messaging.rabbitmq.destination.routing_key',
    'messaging.rabbitmq.routing_key',
  ],
  'messaging.rabbitmq.message.delivery_tag': ['messaging.rabbitmq.message.delivery_tag'],
  'http.response.status_code': ['http.response.status_code', 'http.status_code'],
  'error.type': ['error.type'],
};
const KEPT_ENTRIES = Object.entries(KEPT);
const EVENT_ID = ['acktrail.event_id', 'messaging.message.id', 'messaging.message_id'];
const EVENT_ID_SHAPE = /^[\x21-\x7e]{1,128}$/;
const STAGE_SET = new Set<string>(STAGES);
const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

function first(attrs: Map<string, AttributeValue>, names: string[]): AttributeValue | undefined {
  for (const n of names) {
    const v = attrs.get(n);
    if (v !== undefined) return v;
  }
  return undefined;
}

function stageOf(span: ReceivedSpan, attrs: Map<string, AttributeValue>): Stage | null {
  const explicit = attrs.get('acktrail.stage');
  if (typeof explicit === 'string' && STAGE_SET.has(explicit)) return explicit as Stage;
  if (attrs.has('acktrail.provider.name')) return 'provider.call';
  const op = String(first(attrs, ['messaging.operation.type', 'messaging.operation']) ?? '');
  const opName = String(attrs.get('messaging.operation.name') ?? '');
  if (op === 'settle' || ['ack', 'nack', 'reject'].includes(opName)) return 'settle';
  if (['publish', 'send', 'create'].includes(op) || (op === '' && span.kind === 4))
    return 'outbox.publish';
  if (['process', 'receive', 'deliver'].includes(op) || (op === '' && span.kind === 5))
    return 'deliver';
  return null;
}

function anomalyOf(stage: Stage, attrs: Record<string, AttributeValue>): StepAnomaly | null {
  switch (stage) {
    case 'dead_letter':
      return 'dead_lettered';
    case 'outbox.publish':
      return attrs['acktrail.publish.outcome'] === 'unroutable' ? 'unroutable' : null;
    case 'deliver':
      if (attrs['acktrail.delivery.redelivered'] === true) return 'redelivered';
      return Number(attrs['acktrail.delivery.attempt'] ?? 1) > 1 ? 'retried' : null;
    case 'provider.call':
      return attrs['acktrail.provider.outcome'] === 'idempotent_replay'
        ? 'duplicate_provider_call'
        : null;
    default:
      return null;
  }
}

export type Normalised =
  { kind: 'step'; step: Step } | { kind: 'ignored' } | { kind: 'rejected'; reason: string };

export interface Window {
  /** Oldest and newest accepted start, microseconds since the epoch. */
  fromUs: number;
  toUs: number;
}

export function normalise(span: ReceivedSpan, window: Window): Normalised {
  const attrs = span.attributes;
  const rawId = first(attrs, EVENT_ID);
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
  for (const [name, sources] of KEPT_ENTRIES) {
    const v = first(attrs, sources);
    if (v !== undefined) kept[name] = typeof v === 'string' ? scrub(v) : v;
  }
  // A version is kept only as a whole number: the store compares versions numerically.
  const version = kept['acktrail.aggregate_version'];
  if (version !== undefined && (typeof version !== 'number' || !Number.isSafeInteger(version)))
    delete kept['acktrail.aggregate_version'];
  const aggregateId = attrs.get('acktrail.aggregate_id');
  const aggregateType = attrs.get('acktrail.aggregate_type');
  return {
    kind: 'step',
    step: {
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
      anomaly: anomalyOf(stage, kept),
      attrs: kept,
    },
  };
}
