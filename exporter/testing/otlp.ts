// Sends spans to a receiver with the real OpenTelemetry Node SDK exporters (protobuf and JSON), as
// a pipeline would, and reads the journey store back.
import { ROOT_CONTEXT, SpanKind, trace, type Attributes, type Context } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import pg from 'pg';

/** The stock amqplib instrumentation's tracer name: spans "as it writes them" carry it. */
export const AMQPLIB = '@opentelemetry/instrumentation-amqplib';

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
export function makeSpans(
  specs: SpanSpec[],
  service = 'test-service',
  scope = 'acktrail-test',
): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer(scope);
  for (const s of specs) {
    const start = s.startMs ?? Date.now();
    const span = tracer.startSpan(
      s.name,
      { kind: s.kind ?? SpanKind.INTERNAL, attributes: s.attributes, startTime: start },
      s.parent,
    );
    span.end(start + (s.durationMs ?? 1));
  }
  return memory.getFinishedSpans();
}

/** A context whose active span is `parent`, to start children of it. */
export const childOf = (parent: ReadableSpan): Context =>
  trace.setSpanContext(ROOT_CONTEXT, parent.spanContext());

/**
 * One event's journey as three services would trace it: the API's outbox insert, the relay's
 * confirmed publish (acktrail's names), and a consumer instrumented by some other SDK (old
 * semantic-convention names, no acktrail.stage, and an attribute acktrail must not keep).
 */
export function journeySpans(eventId: string) {
  const [insert] = makeSpans(
    [
      {
        name: 'outbox insert',
        attributes: { 'acktrail.stage': 'outbox.insert', 'acktrail.event_id': eventId },
      },
    ],
    'orders-api',
  );
  const [publish] = makeSpans(
    [
      {
        name: 'publish orders.events',
        kind: SpanKind.PRODUCER,
        parent: childOf(insert!),
        attributes: {
          'acktrail.event_id': eventId,
          'acktrail.stage': 'outbox.publish',
          'acktrail.publish.outcome': 'confirmed',
          'acktrail.aggregate_type': 'order',
          'acktrail.aggregate_id': '7',
        },
      },
    ],
    'orders-relay',
  );
  // A consumer instrumented by the stock amqplib instrumentation alone: its old
  // semantic-convention names, no acktrail.stage; its span ends at the settle.
  const [deliver] = makeSpans(
    [
      {
        name: 'orders.confirmations process',
        kind: SpanKind.CONSUMER,
        parent: childOf(publish!),
        attributes: {
          'messaging.message_id': eventId,
          'messaging.operation': 'process',
          'messaging.rabbitmq.routing_key': 'order.created',
          'messaging.destination': 'orders.events',
          'customer.email': 'jane@example.com',
        },
      },
    ],
    'other-worker',
    AMQPLIB,
  );
  return [insert!, publish!, deliver!];
}

export type Protocol = 'protobuf' | 'json' | 'json+gzip' | 'protobuf+gzip';

/** Exports with the SDK's own OTLP/HTTP exporter; resolves with its result code (0: success). */
export async function exportSpans(
  baseUrl: string,
  spans: ReadableSpan[],
  protocol: Protocol,
  token?: string,
): Promise<{ code: number; error?: Error }> {
  const url = `${baseUrl}/v1/traces`;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const gzip = protocol.endsWith('+gzip');
  const exporter = protocol.startsWith('protobuf')
    ? new ProtoExporter({
        url,
        headers,
        compression: gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
      })
    : new JsonExporter({
        url,
        headers,
        compression: gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
      });
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => {
    exporter.export(spans, resolve);
  });
  await exporter.shutdown();
  return result;
}

export async function countSteps(storeUrl: string, where = 'true', params: unknown[] = []) {
  const client = new pg.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    const r = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM journey_steps WHERE ${where}`,
      params,
    );
    return r.rows[0]!.n;
  } finally {
    await client.end();
  }
}

/**
 * An OTLP/JSON request body, as an SDK's JSON exporter sends it: `count` deliver spans of trace
 * number `trace` (span ids 1..count), event ids `${prefix}-${i}`, plus `attributes` on each.
 */
export function jsonBody(
  trace: number | string,
  count: number,
  prefix: string,
  attributes: [string, string][] = [],
): string {
  const now = BigInt(Date.now()) * 1_000_000n;
  const traceId = typeof trace === 'string' ? trace : trace.toString(16).padStart(32, '0');
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId,
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: 'deliver',
    kind: 5,
    startTimeUnixNano: String(now),
    endTimeUnixNano: String(now + 1_000_000n),
    attributes: [
      ['acktrail.event_id', `${prefix}-${i}`],
      ['acktrail.stage', 'deliver'],
      ...attributes,
    ].map(([key, value]) => ({ key, value: { stringValue: value } })),
  }));
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
}
