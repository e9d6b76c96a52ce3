import { SpanKind, type Attributes, type Context } from '@opentelemetry/api';
import { type ReadableSpan } from '@opentelemetry/sdk-trace';
/** The stock amqplib instrumentation's tracer name: spans "as it writes them" carry it. */
export declare const AMQPLIB = "@opentelemetry/instrumentation-amqplib";
export interface SpanSpec {
    name: string;
    kind?: SpanKind;
    attributes: Attributes;
    /** Start, ms since the epoch (default now); the span lasts durationMs. */
    startMs?: number;
    durationMs?: number;
    parent?: Context;
}
/** Real SDK spans, finished, ready to hand to an exporter (`scope`: their tracer's name). */
export declare function makeSpans(specs: SpanSpec[], service?: string, scope?: string): ReadableSpan[];
/** A context whose active span is `parent`, to start children of it. */
export declare const childOf: (parent: ReadableSpan) => Context;
/**
 * One event's journey as three services would trace it: the API's outbox insert, the relay's
 * confirmed publish (acktrail's names), and a consumer instrumented by some other SDK (old
 * semantic-convention names, no acktrail.stage, and an attribute acktrail must not keep).
 */
export declare function journeySpans(eventId: string): ReadableSpan[];
export type Protocol = 'protobuf' | 'json' | 'json+gzip' | 'protobuf+gzip';
/** Exports with the SDK's own OTLP/HTTP exporter; resolves with its result code (0: success). */
export declare function exportSpans(baseUrl: string, spans: ReadableSpan[], protocol: Protocol, token?: string): Promise<{
    code: number;
    error?: Error;
}>;
export declare function countSteps(storeUrl: string, where?: string, params?: unknown[]): Promise<number>;
/**
 * An OTLP/JSON request body, as an SDK's JSON exporter sends it: `count` deliver spans of trace
 * number `trace` (span ids 1..count), event ids `${prefix}-${i}`, plus `attributes` on each.
 */
export declare function jsonBody(trace: number | string, count: number, prefix: string, attributes?: [string, string][]): string;
