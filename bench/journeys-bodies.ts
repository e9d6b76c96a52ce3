// The journey benchmark's request bodies: OTLP/HTTP protobuf made by the real SDK exporter, and the
// same kind of rows as CSV for a raw COPY.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { childOf, exportSpans, makeSpans } from '@acktrail/exporter/testing/otlp';
import { normalise, decodeProtobuf } from '@acktrail/exporter/testing/spans';
import { BODY_SPANS } from './journeys-data.js';

/**
 * What a body holds (BENCH_JOURNEY_SPANS): `deliveries` (the default, the figures of record so
 * far): 500 deliveries of as many events, no parents; `journeys`: per event its confirmed publish,
 * the delivery (its child) and the ack (the delivery's child), as a pipeline sends them, so that
 * the write also reads parents, publish counts and journey starts.
 */
export const SPAN_MIX = process.env.BENCH_JOURNEY_SPANS ?? 'deliveries';
if (SPAN_MIX !== 'deliveries' && SPAN_MIX !== 'journeys')
  throw new Error('BENCH_JOURNEY_SPANS must be deliveries or journeys');

/** Spans in one body: 498 with `journeys` (166 events of three). */
export const SPANS_PER_BODY = SPAN_MIX === 'journeys' ? 3 * Math.floor(BODY_SPANS / 3) : BODY_SPANS;

const DELIVERY = {
  'acktrail.stage': 'deliver',
  'acktrail.queue': 'orders.confirmations',
  'acktrail.delivery.redelivered': false,
  'acktrail.delivery.attempt': 1,
  'messaging.system': 'rabbitmq',
  'messaging.operation.type': 'process',
  'messaging.destination.name': 'orders.events',
  'messaging.rabbitmq.destination.routing_key': 'order.created',
  'net.peer.name': '127.0.0.1',
};

/** One body's spans: `spans` of them (BODY_SPANS), events `${tag}-${i}`, as `mix` says. */
function bodySpans(tag: string, first: number, spans = BODY_SPANS, mix = SPAN_MIX): ReadableSpan[] {
  const event = (i: number) => ({
    'acktrail.event_id': `${tag}-${i}`,
    'acktrail.aggregate_type': 'order',
    'acktrail.aggregate_id': String(first + i),
  });
  if (mix === 'deliveries')
    return makeSpans(
      Array.from({ length: spans }, (_, i) => ({
        name: 'orders.confirmations process',
        kind: SpanKind.CONSUMER,
        attributes: {
          ...event(i),
          ...DELIVERY,
          'messaging.rabbitmq.message.delivery_tag': i + 1,
        },
      })),
      'orders-worker',
    );
  const events = Array.from({ length: Math.floor(spans / 3) }, (_, i) => i);
  const publishes = makeSpans(
    events.map((i) => ({
      name: 'publish orders.events',
      kind: SpanKind.PRODUCER,
      attributes: {
        ...event(i),
        'acktrail.stage': 'outbox.publish',
        'acktrail.publish.outcome': 'confirmed',
        'messaging.system': 'rabbitmq',
        'messaging.destination.name': 'orders.events',
        'messaging.rabbitmq.destination.routing_key': 'order.created',
      },
    })),
    'orders-relay',
  );
  const deliveries = makeSpans(
    events.map((i) => ({
      name: 'orders.confirmations process',
      kind: SpanKind.CONSUMER,
      parent: childOf(publishes[i]!),
      attributes: { ...event(i), ...DELIVERY, 'messaging.rabbitmq.message.delivery_tag': i + 1 },
    })),
    'orders-worker',
  );
  const acks = makeSpans(
    events.map((i) => ({
      name: 'ack orders.confirmations',
      parent: childOf(deliveries[i]!),
      attributes: {
        ...event(i),
        'acktrail.stage': 'settle',
        'acktrail.settle.outcome': 'ack',
        'acktrail.queue': 'orders.confirmations',
      },
    })),
    'orders-worker',
  );
  return [...publishes, ...deliveries, ...acks];
}

/**
 * Captures the bodies the real SDK's OTLP/HTTP protobuf exporter sends: `count` bodies of
 * `spans` spans each, mixed as `mix` says (BENCH_JOURNEY_SPANS unless given).
 */
export async function sdkBodies(
  count: number,
  tag: string,
  spans = BODY_SPANS,
  mix = SPAN_MIX,
): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  for (let b = 0; b < count; b++) {
    const made = bodySpans(`${tag}-${b}`, b * spans, spans, mix);
    const result = await exportSpans(`http://127.0.0.1:${port}`, made, 'protobuf');
    if (result.code !== 0) throw new Error('capture failed');
  }
  server.close();
  return bodies;
}

/**
 * The same rows as a round of ingest, as CSV for COPY: other bodies made the same way by the SDK
 * (so ids are just as random and nothing conflicts), decoded and normalised by the receiver's own
 * code, each step written as the INSERT would write it.
 */
export function copyCsv(bodies: Buffer[]): string {
  const csv = (v: string | number | null) =>
    v === null ? '' : typeof v === 'number' ? String(v) : `"${v.replace(/"/g, '""')}"`;
  const now = Date.now() * 1000;
  const window = { fromUs: now - 86_400_000_000, toUs: now + 86_400_000_000 };
  const lines: string[] = [];
  for (const body of bodies) {
    for (const span of decodeProtobuf(body)) {
      const n = normalise(span, window);
      if (n.kind !== 'steps') throw new Error('bench span not a step');
      for (const s of n.steps)
        lines.push(
          [
            s.eventId,
            new Date(s.timeUs / 1000).toISOString(),
            s.durationUs,
            s.stage,
            s.service,
            s.traceId,
            s.spanId,
            s.parentSpanId,
            s.name,
            s.status,
            s.statusMessage,
            s.aggregateType,
            s.aggregateId,
            s.anomaly,
            JSON.stringify(s.attrs),
          ]
            .map(csv)
            .join(','),
        );
    }
  }
  return lines.join('\n') + '\n';
}
