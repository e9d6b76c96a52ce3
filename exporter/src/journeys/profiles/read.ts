// What one span says, read as the instrumentation that wrote it writes it: its journey stage,
// where the message went (exchange, routing key, queue: only what the span names) and how the
// delivery was settled (only what the span records). The conventions' reading (semconv.ts) with
// the hooks of the profile that wrote the span (registry.ts). The receiver (spans/normalize.ts)
// and the coverage (spans/coverage-tally.ts) both read spans here and nowhere else.
import {
  ATTR,
  EVENT_ID_ATTRIBUTES,
  SEMCONV,
  namesOf,
  type SettleOutcome,
} from '@acktrail/conventions';
import type { Profile, ProfileModule, Where } from './profile.js';
import { MODULES, UNKNOWN } from './registry.js';
import { explicitOutcome, first, semconvStage, text, type SpanStage } from './semconv.js';
import type { AttributeValue, ReceivedSpan } from './span.js';

/**
 * What a span records of a settle:
 * - `outcome`: how the delivery was settled (acktrail's attribute, a consumer span ended by its
 *   settle, a settle span that says ack);
 * - `requeue-unknown`: a nack or reject whose requeue flag the span does not record;
 * - `unsettled`: the consumer span ended without a settle (channel closed, the instrumentation's
 *   timeout): the message comes back;
 * - `elsewhere`: the settle is a span of its own (a child of this one);
 * - `not-recorded`: nothing the instrumentation writes says.
 */
export type SettleReading =
  | { kind: 'outcome'; outcome: SettleOutcome }
  | { kind: 'requeue-unknown'; operation: 'nack' | 'reject' }
  | { kind: 'unsettled' }
  | { kind: 'elsewhere' }
  | { kind: 'not-recorded' };

export interface Reading extends Where {
  profile: Profile;
  stage: SpanStage | null;
  /** The event id, from the standard attributes or the one this instrumentation writes. */
  eventId: AttributeValue | undefined;
  /** A dead-letter step's reason, where the profile knows it from the span's shape. */
  deadLetterReason: string | null;
  /** Deliveries and settles: what the span records of the settle. */
  settle: SettleReading | null;
  /** A consumer's handler span inside its delivery (MassTransit's process): not a delivery itself. */
  handler: boolean;
}

/** The instrumentation that wrote the span: the first in the registry's order that claims it. */
const moduleOf = (span: ReceivedSpan): ProfileModule =>
  MODULES.find((m) => m.wrote(span)) ?? UNKNOWN;

/** Who wrote the span: acktrail's attributes first, then the instrumentation scope. */
export const profileOf = (span: ReceivedSpan): Profile => moduleOf(span).profile;

/** What a settle span settled: the operation its attributes or its profile's span name say. */
function settleSpanReading(span: ReceivedSpan, module: ProfileModule): SettleReading {
  const explicit = explicitOutcome(span);
  if (explicit) return { kind: 'outcome', outcome: explicit };
  const named = text(span.attributes.get(SEMCONV.operationName)) ?? module.settleOperation?.(span);
  const op = (named ?? '').toLowerCase();
  if (op === 'ack') return { kind: 'outcome', outcome: 'ack' };
  // Neither semconv nor the Java agent records a nack's or reject's requeue flag.
  if (op === 'nack' || op === 'reject') return { kind: 'requeue-unknown', operation: op };
  return { kind: 'not-recorded' };
}

/** What a consumer span records of its delivery's settle, by how its profile records one. */
function deliverSettleReading(span: ReceivedSpan, module: ProfileModule): SettleReading {
  const explicit = explicitOutcome(span);
  if (explicit) return { kind: 'outcome', outcome: explicit };
  switch (module.profile.settle) {
    case 'span-end': {
      const outcome = module.endedBy?.(span) ?? null;
      return outcome ? { kind: 'outcome', outcome } : { kind: 'unsettled' };
    }
    case 'span-status':
      return span.statusCode === 1
        ? { kind: 'outcome', outcome: 'ack' }
        : span.statusCode === 2
          ? { kind: 'outcome', outcome: 'nack_requeue' }
          : { kind: 'not-recorded' };
    case 'settle-spans':
    case 'settle-spans-in-handler':
      return { kind: 'elsewhere' };
    case 'none':
      return { kind: 'not-recorded' };
  }
}

/** Where the message went, as this profile's span names it. */
function whereOf(span: ReceivedSpan, module: ProfileModule, stage: SpanStage): Where {
  const a = span.attributes;
  const destination = text(first(a, namesOf(SEMCONV.destination)));
  const routingKey = text(first(a, namesOf(SEMCONV.routingKey)));
  const named = text(a.get(ATTR.queue));
  const where: Where = { exchange: destination, routingKey, queue: named, exchangeOrQueue: null };
  if (!module.where) return where;
  const processName = / process$/.test(span.name) ? span.name.slice(0, -' process'.length) : null;
  return module.where(where, {
    span,
    deliver: stage === 'deliver',
    destination,
    routingKey,
    named,
    processName,
  });
}

/** Everything journeys read from one span. */
export function readSpan(span: ReceivedSpan): Reading {
  const module = moduleOf(span);
  const stage = module.stage ? module.stage(span, semconvStage) : semconvStage(span);
  const attrs = span.attributes;
  const parked = module.parked?.(span, stage) ?? null;
  const none: Reading = {
    profile: module.profile,
    stage,
    eventId: first(attrs, EVENT_ID_ATTRIBUTES) ?? module.eventId?.(attrs),
    deadLetterReason: parked?.reason ?? null,
    exchange: null,
    routingKey: null,
    queue: null,
    exchangeOrQueue: null,
    settle: null,
    handler: module.handler?.(span) ?? false,
  };
  if (stage === null || none.handler) return none;
  const messaging = stage === 'publish' || stage === 'outbox.publish' || stage === 'deliver';
  return {
    ...none,
    ...(messaging
      ? whereOf(span, module, stage)
      : { queue: parked ? parked.queue : text(attrs.get(ATTR.queue)) }),
    settle:
      stage === 'deliver'
        ? deliverSettleReading(span, module)
        : stage === 'settle'
          ? settleSpanReading(span, module)
          : null,
  };
}
