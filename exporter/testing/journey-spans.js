import { normalise } from '../src/journeys/spans/normalize.js';
export const T = Date.parse('2026-11-30T12:00:00Z');
export const EVENT = '7a0c54a2-8d1f-4d0e-9a51-3f2b7c9e1d20';
let nextSpan = 1;
/** The stock amqplib instrumentation's scope, as its spans carry it. */
export const AMQPLIB_SCOPE = {
    name: '@opentelemetry/instrumentation-amqplib',
    version: '0.71.0',
};
/** A span as the receiver decodes it; its span id is returned for children to name. */
export function span(s) {
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
export function stored(spans, queues = () => null) {
    return spans.flatMap((s) => {
        const n = normalise(s, { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER }, queues);
        if (n.kind !== 'steps')
            throw new Error(`fixture span ${s.name} is ${n.kind}`);
        return n.steps;
    });
}
// The stock amqplib instrumentation: names and attributes as it writes them (0.70).
export const stock = {
    publish: (at, exchange = 'payments') => ({
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
    deliver: (at, queue, ended) => ({
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
export const NACK_REQUEUE = [2, 'nack called on message with requeue'];
export const REJECT = [2, 'reject called on message without requeue'];
export const NACK_NO_REQUEUE = [2, 'nack called on message without requeue'];
export const CHANNEL_CLOSED = [2, 'channel closed'];
// @acktrail/instrument: the same events with acktrail's attributes and settle spans.
export const ours = {
    publish: (at, outcome = 'confirmed', stage = 'publish') => ({
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
    deliver: (at, queue, extra = {}) => ({
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
    settle: (at, outcome, parent, queue) => ({
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
    step: (at, stage, extra = {}) => ({
        name: stage,
        at,
        attrs: { 'acktrail.stage': stage, 'acktrail.event_id': EVENT, ...extra },
    }),
};
export const classic = (dlx) => ({
    vhost: '/',
    type: 'classic',
    role: 'work',
    deadLetterExchange: dlx,
    deadLetterRoutingKey: null,
    deliveryLimit: null,
});
export const QUEUES = {
    'payments.capture': classic('payments.dlx'),
    'payments.refunds': classic(null),
    'payments.ledger': { ...classic('payments.dlx'), type: 'quorum', deliveryLimit: 2 },
    'payments.ledger-nodlx': { ...classic(null), type: 'quorum', deliveryLimit: 2 },
    'payments.dlq': { ...classic(null), role: 'dead_letter' },
};
//# sourceMappingURL=journey-spans.js.map