// Span fixtures of one event's journey in both shapes: spans as @acktrail/instrument writes them,
// and spans as the stock OpenTelemetry amqplib instrumentation alone writes them (no acktrail.*
// attribute at all), with the queues they name. The journey kinds' tests and the journey model's
// agreement test build their journeys from these.
import type { AttributeValue } from '@acktrail/conventions';
import type { QueueFacts, QueueLookup } from '../src/broker/topology.js';
import { normalise } from '../src/journeys/spans/normalize.js';
import type { ReceivedSpan, SpanLink, SpanScope } from '../src/journeys/profiles/index.js';
import type { StoredRow } from '../src/journeys/model/steps.js';

export const T = Date.parse('2026-11-30T12:00:00Z');
export const EVENT = '7a0c54a2-8d1f-4d0e-9a51-3f2b7c9e1d20';
let nextSpan = 1;

export interface Spec {
  name: string;
  /** OTLP SpanKind: 4 producer, 5 consumer, 1 internal. */
  kind?: number;
  at: number;
  /** ms after `at` the span ended (for a stock consumer span: when it was settled). */
  lasts?: number;
  attrs?: Record<string, AttributeValue>;
  status?: [code: number, message: string];
  parent?: string;
  /** The instrumentation scope; the stock amqplib instrumentation's by default. */
  scope?: SpanScope;
  links?: SpanLink[];
  traceId?: string;
  /** W3C tracestate, e.g. 'ot=th:c' (a 25 % consistent-probability sample). */
  traceState?: string;
}

/** The stock amqplib instrumentation's scope, as its spans carry it. */
export const AMQPLIB_SCOPE: SpanScope = {
  name: '@opentelemetry/instrumentation-amqplib',
  version: '0.71.0',
};

/** A span as the receiver decodes it; its span id is returned for children to name. */
export function span(s: Spec): ReceivedSpan {
  const spanId = (nextSpan++).toString(16).padStart(16, '0');
  return {
    traceId: s.traceId ?? 'ab'.repeat(16),
    spanId,
    parentSpanId: s.parent ?? '',
    name: s.name,
    kind: s.kind ?? 1,
    startUs: (T + s.at) * 1000,
    endUs: (T + s.at + (s.lasts ?? 2)) * 1000,
    attributes: new Map(Object.entries(s.attrs ?? {})),
    statusCode: s.status?.[0] ?? 0,
    statusMessage: s.status?.[1] ?? '',
    service: 'svc',
    scope: s.scope ?? AMQPLIB_SCOPE,
    links: s.links ?? [],
    traceState: s.traceState ?? '',
  };
}

/** What the store would give back for these spans (`queues`: what the exporter knew). */
export function stored(spans: ReceivedSpan[], queues: QueueLookup = () => null): StoredRow[] {
  return spans.flatMap((s) => {
    const n = normalise(s, { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER }, queues);
    if (n.kind !== 'steps') throw new Error(`fixture span ${s.name} is ${n.kind}`);
    return n.steps;
  });
}

// The stock amqplib instrumentation: names and attributes as it writes them (0.70).
export const stock = {
  publish: (at: number, exchange = 'payments'): Spec => ({
    name: `publish ${exchange}`,
    kind: 4,
    at,
    attrs: {
      'messaging.system': 'rabbitmq',
      'messaging.destination': exchange,
      'messaging.rabbitmq.routing_key': 'payment.created',
      'messaging.message_id': EVENT,
    },
  }),
  /** A consumer span: it ends when the message is settled, its status saying how. */
  deliver: (at: number, queue: string, ended: 'ack' | [number, string]): Spec => ({
    name: `${queue} process`,
    kind: 5,
    at,
    lasts: 5,
    attrs: {
      'messaging.system': 'rabbitmq',
      'messaging.operation': 'process',
      'messaging.destination': 'payments',
      'messaging.message_id': EVENT,
    },
    ...(ended === 'ack' ? {} : { status: ended }),
  }),
};
export const NACK_REQUEUE: [number, string] = [2, 'nack called on message with requeue'];
export const REJECT: [number, string] = [2, 'reject called on message without requeue'];
export const NACK_NO_REQUEUE: [number, string] = [2, 'nack called on message without requeue'];
export const CHANNEL_CLOSED: [number, string] = [2, 'channel closed'];

// @acktrail/instrument: the same events with acktrail's attributes and settle spans.
export const ours = {
  publish: (at: number, outcome = 'confirmed', stage = 'publish'): Spec => ({
    name: 'publish payments',
    kind: 4,
    at,
    attrs: {
      'acktrail.stage': stage,
      'acktrail.event_id': EVENT,
      'acktrail.publish.outcome': outcome,
      'messaging.system': 'rabbitmq',
    },
  }),
  deliver: (at: number, queue: string, extra: Record<string, AttributeValue> = {}): Spec => ({
    name: `${queue} process`,
    kind: 5,
    at,
    attrs: {
      'acktrail.stage': 'deliver',
      'acktrail.event_id': EVENT,
      'acktrail.queue': queue,
      'acktrail.delivery.redelivered': false,
      'acktrail.delivery.attempt': 1,
      ...extra,
    },
  }),
  settle: (at: number, outcome: string, parent: ReceivedSpan, queue: string): Spec => ({
    name: `${outcome} ${queue}`,
    at,
    parent: parent.spanId,
    attrs: {
      'acktrail.stage': 'settle',
      'acktrail.event_id': EVENT,
      'acktrail.settle.outcome': outcome,
      'acktrail.queue': queue,
    },
  }),
  step: (at: number, stage: string, extra: Record<string, AttributeValue> = {}): Spec => ({
    name: stage,
    at,
    attrs: { 'acktrail.stage': stage, 'acktrail.event_id': EVENT, ...extra },
  }),
};

export const classic = (dlx: string | null): QueueFacts => ({
  vhost: '/',
  type: 'classic',
  role: 'work',
  deadLetterExchange: dlx,
  deadLetterRoutingKey: null,
  deliveryLimit: null,
});
export const QUEUES: Record<string, QueueFacts> = {
  'payments.capture': classic('payments.dlx'),
  'payments.refunds': classic(null),
  'payments.ledger': { ...classic('payments.dlx'), type: 'quorum', deliveryLimit: 2 },
  'payments.ledger-nodlx': { ...classic(null), type: 'quorum', deliveryLimit: 2 },
  'payments.dlq': { ...classic(null), role: 'dead_letter' },
};
