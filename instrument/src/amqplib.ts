// Hooks for @opentelemetry/instrumentation-amqplib that add what the stock instrumentation lacks:
// the event id, aggregate, stage, redelivered flag, delivery tag, attempt, queue, dead-letter
// reason (from x-death or the pipeline's header), publish outcome (confirmed, nacked, unroutable)
// and the settle (ack, nack or reject) on the delivery's span.
import { context, propagation, trace, SpanStatusCode, type Span } from '@opentelemetry/api';
import {
  AmqplibInstrumentation,
  EndOperation,
  type AmqplibInstrumentationConfig,
} from '@opentelemetry/instrumentation-amqplib';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { ATTR, EVENT_BAGGAGE, type Stage } from '@acktrail/conventions';
import { relayingOutbox } from './outbox.js';

export interface AmqpConventions {
  /** Header with the delivery attempt number (1 for the first); else x-death counts are used. */
  attemptHeader?: string;
  /** Header a consumer sets on a message it dead-letters itself, with the reason. */
  deadLetterReasonHeader?: string;
  aggregateTypeHeader?: string;
  aggregateIdHeader?: string;
  aggregateVersionHeader?: string;
  /** Routing keys (to the default exchange) of retry queues: publishes to them are retries. */
  retryQueue?: RegExp;
}

const DEFAULTS: Required<AmqpConventions> = {
  attemptHeader: 'x-acktrail-attempt',
  deadLetterReasonHeader: 'x-acktrail-dead-letter-reason',
  aggregateTypeHeader: 'x-acktrail-aggregate-type',
  aggregateIdHeader: 'x-acktrail-aggregate-id',
  aggregateVersionHeader: 'x-acktrail-aggregate-version',
  retryQueue: /\.retry(\.|$)/,
};

type Headers = Record<string, unknown>;

/** messageId -> reply text of a mandatory publish the broker returned (see trackReturns). */
const returned = new Map<string, string>();
const MAX_RETURNED = 10_000;
/** The consumer spans, so that publishes made while handling one know its queue. */
const consumerSpans = new WeakSet<Span>();
/** The stock consumer span is named "<queue> process". */
const queueOf = (span: ReadableSpan) => span.name.replace(/ process$/, '');

/**
 * Records basic.return on a channel, so that the publish span of a returned message says
 * "unroutable" (the return arrives before the confirm).
 */
export function trackReturns(channel: {
  on(event: 'return', listener: (msg: { properties: { messageId?: unknown } }) => void): unknown;
}): void {
  channel.on('return', (msg) => {
    const id = msg.properties.messageId;
    if (typeof id !== 'string') return;
    if (returned.size >= MAX_RETURNED) returned.clear();
    const replyText = (msg as { fields?: { replyText?: string } }).fields?.replyText;
    returned.set(id, replyText ?? 'NO_ROUTE');
  });
}

/** Sets what the handler decided, in the pipeline's words, on the delivery's span (ATTR.result). */
export function recordResult(result: string): void {
  trace.getActiveSpan()?.setAttribute(ATTR.result, result);
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return undefined;
}

function eventIdOf(messageId: unknown, headers: Headers): string | undefined {
  return (
    str(messageId) ??
    str(headers[ATTR.eventId]) ??
    propagation.getBaggage(context.active())?.getEntry(EVENT_BAGGAGE)?.value
  );
}

/**
 * The facts the stock instrumentation does not record. One attribute per fact: the stock spans
 * already carry the message id (messaging.message_id), the system, the exchange and the routing
 * key, so acktrail.event_id is set only when the event id is not the message id.
 */
function setCommon(
  span: Span,
  c: Required<AmqpConventions>,
  id: string | undefined,
  messageId: unknown,
  h: Headers,
) {
  if (id !== undefined && id !== messageId) span.setAttribute(ATTR.eventId, id);
  const type = str(h[c.aggregateTypeHeader]);
  const aggregate = str(h[c.aggregateIdHeader]);
  const version = Number(h[c.aggregateVersionHeader]);
  if (type !== undefined) span.setAttribute(ATTR.aggregateType, type);
  if (aggregate !== undefined) span.setAttribute(ATTR.aggregateId, aggregate);
  if (Number.isInteger(version)) span.setAttribute(ATTR.aggregateVersion, version);
}

function xDeath(headers: Headers): { count: number; reason?: string; queue?: string } | null {
  const deaths = headers['x-death'];
  if (!Array.isArray(deaths) || deaths.length === 0) return null;
  let count = 0;
  for (const d of deaths as Headers[]) count += Number(d.count ?? 1);
  const first = deaths[0] as Headers;
  return { count, reason: str(first.reason), queue: str(first.queue) };
}

function settleOutcome(op: EndOperation, span: Span): string | null {
  switch (op) {
    case EndOperation.Ack:
    case EndOperation.AckAll:
    case EndOperation.AutoAck:
      return 'ack';
    case EndOperation.Nack:
    case EndOperation.NackAll: {
      const message = (span as unknown as ReadableSpan).status.message ?? '';
      return message.endsWith('with requeue') ? 'nack_requeue' : 'nack';
    }
    case EndOperation.Reject:
      return 'reject';
    default:
      // channel closed, channel error, instrumentation timeout: the message was never settled
      return null;
  }
}

/** The stock amqplib instrumentation, configured with acktrail's hooks. */
export function amqplibInstrumentation(conventions: AmqpConventions = {}): AmqplibInstrumentation {
  const c = { ...DEFAULTS, ...conventions };
  const config: AmqplibInstrumentationConfig = {
    publishHook(span, info) {
      const headers = (info.options?.headers ?? {}) as Headers;
      const messageId = info.options?.messageId;
      setCommon(span, c, eventIdOf(messageId, headers), messageId, headers);
      const reason = str(headers[c.deadLetterReasonHeader]);
      // An outbox's publish only when a relay publishes a row (continueFromOutbox).
      let stage: Stage = relayingOutbox() ? 'outbox.publish' : 'publish';
      if (reason !== undefined) {
        stage = 'dead_letter';
        span.setAttribute(ATTR.deadLetterReason, reason);
      } else if (info.exchange === '' && c.retryQueue.test(info.routingKey)) {
        stage = 'retry.publish';
        const delay = Number(info.options?.expiration);
        if (Number.isFinite(delay)) span.setAttribute(ATTR.retryDelayMs, delay);
      }
      // A plain publish is the stock producer span's own stage.
      if (stage !== 'publish') span.setAttribute(ATTR.stage, stage);
      // Published while handling a delivery: the queue it came from.
      const parent = trace.getActiveSpan();
      if (parent && consumerSpans.has(parent))
        span.setAttribute(ATTR.queue, queueOf(parent as unknown as ReadableSpan));
    },
    publishConfirmHook(span, info) {
      const id = str(info.options?.messageId);
      const replyText = id === undefined ? undefined : returned.get(id);
      if (id !== undefined) returned.delete(id);
      if (replyText !== undefined) {
        span.setAttribute(ATTR.publishOutcome, 'unroutable');
        span.setStatus({ code: SpanStatusCode.ERROR, message: `unroutable: ${replyText}` });
      } else {
        span.setAttribute(ATTR.publishOutcome, info.confirmError ? 'nacked' : 'confirmed');
      }
    },
    consumeHook(span, { msg }) {
      const headers = (msg.properties.headers ?? {}) as Headers;
      const messageId: unknown = msg.properties.messageId;
      setCommon(span, c, eventIdOf(messageId, headers), messageId, headers);
      // The stage (deliver) and the queue are the stock span's own: a consumer span named
      // "<queue> process". Only what it lacks is added.
      consumerSpans.add(span);
      span.setAttribute(ATTR.redelivered, msg.fields.redelivered);
      const death = xDeath(headers);
      const header = Number(headers[c.attemptHeader]);
      const attempt = Number.isInteger(header) && header > 0 ? header : 1 + (death?.count ?? 0);
      // The first attempt is the default.
      if (attempt !== 1) span.setAttribute(ATTR.attempt, attempt);
      const reason = str(headers[c.deadLetterReasonHeader]) ?? death?.reason;
      if (death || headers[c.deadLetterReasonHeader] !== undefined)
        span.setAttribute(ATTR.deadLetterReason, reason ?? 'unknown');
    },
    // The settle is an attribute of the delivery's span, which the stock instrumentation ends
    // right after this hook: no span of its own (the exporter derives the settle step from it).
    consumeEndHook(span, { endOperation }) {
      const outcome = settleOutcome(endOperation, span);
      if (outcome !== null) span.setAttribute(ATTR.settleOutcome, outcome);
    },
  };
  return new AmqplibInstrumentation(config);
}
