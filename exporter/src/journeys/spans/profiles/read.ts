// What one span says, read as the instrumentation that wrote it writes it (sdks.ts): its journey
// stage, where the message went (exchange, routing key, queue: only what the span names) and how
// the delivery was settled (only what the span records). The receiver (normalize.ts) and the
// coverage (coverage-tally.ts) both read spans here and nowhere else.
import {
  ATTR,
  EVENT_ID_ATTRIBUTES,
  SEMCONV,
  SETTLE_OUTCOMES,
  STAGES,
  namesOf,
  type SettleOutcome,
} from '@acktrail/conventions';
import { settleFromStatus } from '../../model/settle.js';
import type { Stage } from '../../model/steps.js';
import type { AttributeValue, ReceivedSpan } from './span.js';
import { PROFILES, type Profile } from '../../model/profiles.js';

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

export interface Reading {
  profile: Profile;
  stage: Stage | null;
  /** The event id, from the standard attributes or the one this instrumentation writes. */
  eventId: AttributeValue | undefined;
  /** A dead-letter step's reason, where the profile knows it from the span's shape. */
  deadLetterReason: string | null;
  /** The exchange a publish went to, or a delivery came through ('' the default); null unknown. */
  exchange: string | null;
  routingKey: string | null;
  /** The queue, where the span names it. */
  queue: string | null;
  /** A name that is the exchange, or the queue when the default exchange was used (Python's). */
  exchangeOrQueue: string | null;
  /** Deliveries and settles: what the span records of the settle. */
  settle: SettleReading | null;
  /** A consumer's handler span inside its delivery (MassTransit's process): not a delivery itself. */
  handler: boolean;
}

const PRODUCER = 4;
const CONSUMER = 5;
const CLIENT = 3;
const STAGE_SET = new Set<string>(STAGES);
const SETTLE_NAMES = new Set(['ack', 'nack', 'reject']);
const SETTLE_OUTCOME_SET = new Set<string>(SETTLE_OUTCOMES);

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

const text = (v: AttributeValue | undefined): string | null => (typeof v === 'string' ? v : null);

/** Who wrote the span: acktrail's attributes first, then the instrumentation scope. */
export function profileOf(span: ReceivedSpan): Profile {
  const a = span.attributes;
  if (a.has(ATTR.stage)) return PROFILES.acktrail;
  const scope = span.scope.name;
  if (scope === '@opentelemetry/instrumentation-amqplib') return PROFILES['node-amqplib'];
  // The agent's RabbitMQ instrumentations; its others (HTTP, JDBC) are read by the conventions.
  if (scope === 'io.opentelemetry.rabbitmq-2.7' || scope === 'io.opentelemetry.spring-rabbit-1.0')
    return PROFILES['java-agent'];
  if (a.has('spring.rabbit.listener.id') || a.has('spring.rabbit.template.name'))
    return PROFILES['spring-amqp'];
  if (scope === 'RabbitMQ.Client.Publisher' || scope === 'RabbitMQ.Client.Subscriber')
    return PROFILES['dotnet-client'];
  if (scope.startsWith('opentelemetry.instrumentation.pika')) return PROFILES['python-pika'];
  if (scope.startsWith('opentelemetry.instrumentation.aio_pika'))
    return PROFILES['python-aio-pika'];
  if (scope === 'OpenTelemetry::Instrumentation::Bunny') return PROFILES['ruby-bunny'];
  if (scope === 'MassTransit') return PROFILES.masstransit;
  return PROFILES.unknown;
}

/** The journey stage by the messaging semantic conventions (old and v1.43 names). */
function semconvStage(span: ReceivedSpan): Stage | null {
  const a = span.attributes;
  const explicit = a.get(ATTR.stage);
  if (typeof explicit === 'string' && STAGE_SET.has(explicit)) return explicit as Stage;
  if (a.has(ATTR.providerName)) return 'provider.call';
  const op = String(first(a, namesOf(SEMCONV.operationType)) ?? '');
  const opName = String(a.get(SEMCONV.operationName) ?? '');
  if (op === 'settle' || SETTLE_NAMES.has(opName)) return 'settle';
  // A publish is an outbox's only when its instrumentation says so (acktrail.stage).
  if (['publish', 'send', 'create'].includes(op) || (op === '' && span.kind === PRODUCER))
    return 'publish';
  if (['process', 'receive', 'deliver'].includes(op) || (op === '' && span.kind === CONSUMER))
    return 'deliver';
  return null;
}

/** The Java agent's settle spans: "basic.ack" (old semconv, renamed from "Channel.basicAck"). */
const JAVA_SETTLE = /^(?:basic\.|Channel\.basic)(ack|nack|reject)$/i;

function stageOf(span: ReceivedSpan, profile: Profile): Stage | null {
  // .NET's BasicGet that found the queue empty: no message, no journey.
  if (
    profile.id === 'dotnet-client' &&
    span.attributes.get(SEMCONV.operationName) === 'fetch (empty)'
  )
    return null;
  if (profile.id === 'masstransit') return massTransitStage(span);
  // Bunny's receive span (the reader loop's frame, or basic_get) starts a trace of its own and
  // links nothing: the delivery is its child, the process span, which links the publish.
  if (profile.id === 'ruby-bunny' && span.kind === CONSUMER && !/ process$/.test(span.name))
    return null;
  if (profile.id === 'java-agent') {
    // spring-rabbit-1.0's listener span runs inside rabbitmq-2.7's process span: one delivery.
    if (span.scope.name !== 'io.opentelemetry.rabbitmq-2.7') return null;
    if (span.kind === CLIENT && JAVA_SETTLE.test(span.name)) return 'settle';
  }
  return semconvStage(span);
}

/** MassTransit's error and skipped queues: where it moves a faulted or unconsumed message. */
const MT_PARKED = /_(error|skipped)$/;
/** MassTransit's own message id, on its send and process activities. */
const MT_MESSAGE_ID = 'messaging.masstransit.message_id';

/** MassTransit's consume, handler and saga activities ("<endpoint> process", consumer). */
const isMassTransitHandler = (span: ReceivedSpan) =>
  span.kind === CONSUMER && span.attributes.get('messaging.operation') === 'process';

/**
 * MassTransit's activities: "<endpoint> receive" (consumer) is the delivery, and ends after the
 * ack or nack; the consume, handler and saga activities inside it ("<endpoint> process") are its
 * handler (a delivery step marked as such, part of the receive's delivery: their error status is
 * the fault that moves the message to "<queue>_error", which its error transport does without a
 * send activity of its own: RabbitMqMoveTransport publishes on the channel); "outbox send" writes
 * to its transactional outbox; a send to "<queue>_error" (or "_skipped"), where an app records
 * one, is that move.
 */
function massTransitStage(span: ReceivedSpan): Stage | null {
  if (span.name === 'outbox send') return 'outbox.insert';
  if (span.name === 'outbox process') return null;
  if (isMassTransitHandler(span)) return 'deliver';
  const dest = text(span.attributes.get(SEMCONV.destination));
  if (span.kind === PRODUCER && dest !== null && MT_PARKED.test(dest)) return 'dead_letter';
  return semconvStage(span);
}

/** acktrail's settle outcome, where the span carries one (any instrumentation may set it). */
function explicitOutcome(span: ReceivedSpan): SettleReading | null {
  const o = span.attributes.get(ATTR.settleOutcome);
  return typeof o === 'string' && SETTLE_OUTCOME_SET.has(o)
    ? { kind: 'outcome', outcome: o as SettleOutcome }
    : null;
}

/** What a settle span settled: semconv's operation name (ack, nack, reject), or the Java name. */
function settleSpanReading(span: ReceivedSpan): SettleReading {
  const explicit = explicitOutcome(span);
  if (explicit) return explicit;
  const named =
    text(span.attributes.get(SEMCONV.operationName)) ?? JAVA_SETTLE.exec(span.name)?.[1];
  const op = (named ?? '').toLowerCase();
  if (op === 'ack') return { kind: 'outcome', outcome: 'ack' };
  // Neither semconv nor the Java agent records a nack's or reject's requeue flag.
  if (op === 'nack' || op === 'reject') return { kind: 'requeue-unknown', operation: op };
  return { kind: 'not-recorded' };
}

function deliverSettleReading(span: ReceivedSpan, profile: Profile): SettleReading {
  const explicit = explicitOutcome(span);
  if (explicit) return explicit;
  switch (profile.settle) {
    case 'span-end': {
      const outcome = settleFromStatus(span);
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

/** '<default>' (Java), 'amq.default' (.NET, Java stable): the default exchange, ''. */
const exchangeName = (v: string | null): string | null =>
  v === '<default>' || v === 'amq.default' ? '' : v;

/**
 * The Java agent's v1.43 destination: "<exchange>:<key>" on a publish, "<exchange>:<key>:<queue>"
 * on a delivery (the queue left out when it equals the key), empty parts dropped. The routing key,
 * recorded on its own, says where the parts meet.
 */
function javaStableDestination(
  dest: string,
  key: string | null,
): { exchange: string | null; queue: string | null } {
  if (dest === 'amq.default') return { exchange: '', queue: null };
  if (key === null || key === '') {
    const [exchange, ...rest] = dest.split(':');
    return { exchange: exchange ?? null, queue: rest.length === 1 ? rest[0]! : null };
  }
  if (dest === key) return { exchange: '', queue: key };
  if (dest.endsWith(`:${key}`)) return { exchange: dest.slice(0, -key.length - 1), queue: key };
  if (dest.startsWith(`${key}:`)) return { exchange: '', queue: dest.slice(key.length + 1) };
  const at = dest.indexOf(`:${key}:`);
  return at >= 0
    ? { exchange: dest.slice(0, at), queue: dest.slice(at + key.length + 2) }
    : { exchange: null, queue: null };
}

interface Where {
  exchange: string | null;
  routingKey: string | null;
  queue: string | null;
  exchangeOrQueue: string | null;
}

/** Where the message went, as this profile's span names it. */
function whereOf(span: ReceivedSpan, profile: Profile, stage: Stage): Where {
  const a = span.attributes;
  const dest = text(first(a, namesOf(SEMCONV.destination)));
  const key = text(first(a, namesOf(SEMCONV.routingKey)));
  const named = text(a.get(ATTR.queue));
  const deliver = stage === 'deliver';
  const where: Where = { exchange: dest, routingKey: key, queue: named, exchangeOrQueue: null };
  const processName = / process$/.test(span.name) ? span.name.slice(0, -' process'.length) : null;
  switch (profile.id) {
    case 'acktrail':
    case 'node-amqplib':
      if (deliver && where.queue === null) where.queue = processName;
      return where;
    case 'java-agent': {
      if (a.has(SEMCONV.operationType) && dest !== null) {
        const parsed = javaStableDestination(dest, key);
        return {
          ...where,
          exchange: parsed.exchange,
          queue: named ?? (deliver ? parsed.queue : null),
        };
      }
      // "<default> process", "<generated> process": no queue named.
      const queue = deliver && processName && !/^<.*>$/.test(processName) ? processName : null;
      return { ...where, exchange: exchangeName(dest), queue: named ?? queue };
    }
    case 'spring-amqp':
      // The listener's destination is its queue; the template's, the exchange.
      return deliver ? { ...where, exchange: null, queue: named ?? dest } : where;
    case 'dotnet-client':
      return { ...where, exchange: exchangeName(dest) };
    case 'python-aio-pika':
      if (!deliver && dest !== null && dest.includes(',')) {
        const at = dest.indexOf(',');
        return { ...where, exchange: dest.slice(0, at), routingKey: key ?? dest.slice(at + 1) };
      }
      return { ...where, exchange: null, exchangeOrQueue: dest };
    case 'python-pika':
      // "exchange if exchange else routing_key": the exchange, or the queue on the default one.
      return { ...where, exchange: null, exchangeOrQueue: dest };
    case 'masstransit':
      // Its exchanges and queues are named by endpoint: a delivery's destination is its queue.
      return deliver ? { ...where, exchange: null, queue: named ?? dest } : where;
    case 'ruby-bunny':
    case 'unknown':
      return where;
  }
}

/** Everything journeys read from one span. */
export function readSpan(span: ReceivedSpan): Reading {
  const profile = profileOf(span);
  const stage = stageOf(span, profile);
  const attrs = span.attributes;
  const dest = text(attrs.get(SEMCONV.destination));
  const mtParked = profile.id === 'masstransit' && stage === 'dead_letter' && dest !== null;
  const none: Reading = {
    profile,
    stage,
    eventId:
      first(attrs, EVENT_ID_ATTRIBUTES) ??
      (profile.id === 'masstransit' ? attrs.get(MT_MESSAGE_ID) : undefined),
    deadLetterReason: mtParked ? (dest.endsWith('_error') ? 'fault' : 'skipped') : null,
    exchange: null,
    routingKey: null,
    queue: null,
    exchangeOrQueue: null,
    settle: null,
    handler: profile.id === 'masstransit' && isMassTransitHandler(span),
  };
  if (stage === null || none.handler) return none;
  const messaging = stage === 'publish' || stage === 'outbox.publish' || stage === 'deliver';
  return {
    ...none,
    ...(messaging
      ? whereOf(span, profile, stage)
      : { queue: mtParked ? dest.replace(MT_PARKED, '') : text(attrs.get(ATTR.queue)) }),
    settle:
      stage === 'deliver'
        ? deliverSettleReading(span, profile)
        : stage === 'settle'
          ? settleSpanReading(span)
          : null,
  };
}
