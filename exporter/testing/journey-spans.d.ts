import type { AttributeValue } from '@acktrail/conventions';
import type { QueueFacts, QueueLookup } from '../src/broker/topology.js';
import type { ReceivedSpan, SpanLink, SpanScope } from '../src/journeys/profiles/index.js';
import type { StoredRow } from '../src/journeys/model/steps.js';
export declare const T: number;
export declare const EVENT = "7a0c54a2-8d1f-4d0e-9a51-3f2b7c9e1d20";
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
export declare const AMQPLIB_SCOPE: SpanScope;
/** A span as the receiver decodes it; its span id is returned for children to name. */
export declare function span(s: Spec): ReceivedSpan;
/** What the store would give back for these spans (`queues`: what the exporter knew). */
export declare function stored(spans: ReceivedSpan[], queues?: QueueLookup): StoredRow[];
export declare const stock: {
    publish: (at: number, exchange?: string) => Spec;
    /** A consumer span: it ends when the message is settled, its status saying how. */
    deliver: (at: number, queue: string, ended: "ack" | [number, string]) => Spec;
};
export declare const NACK_REQUEUE: [number, string];
export declare const REJECT: [number, string];
export declare const NACK_NO_REQUEUE: [number, string];
export declare const CHANNEL_CLOSED: [number, string];
export declare const ours: {
    publish: (at: number, outcome?: string, stage?: string) => Spec;
    deliver: (at: number, queue: string, extra?: Record<string, AttributeValue>) => Spec;
    settle: (at: number, outcome: string, parent: ReceivedSpan, queue: string) => Spec;
    step: (at: number, stage: string, extra?: Record<string, AttributeValue>) => Spec;
};
export declare const classic: (dlx: string | null) => QueueFacts;
export declare const QUEUES: Record<string, QueueFacts>;
