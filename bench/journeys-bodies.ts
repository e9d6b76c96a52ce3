// The journey benchmark's request bodies: OTLP/HTTP protobuf made by the real SDK exporter, and the
// same kind of rows as CSV for a raw COPY.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { SpanKind } from '@opentelemetry/api';
import { exportSpans, makeSpans } from '../exporter/src/testing/otlp.js';
import { normalise } from '../exporter/src/receiver/normalize.js';
import { decodeProtobuf } from '../exporter/src/receiver/decode.js';
import { BODY_SPANS } from './journeys-data.js';

/** Captures the bodies the real SDK's OTLP/HTTP protobuf exporter sends. */
export async function sdkBodies(count: number, tag: string): Promise<Buffer[]> {
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
    const spans = makeSpans(
      Array.from({ length: BODY_SPANS }, (_, i) => ({
        name: 'orders.confirmations process',
        kind: SpanKind.CONSUMER,
        attributes: {
          'acktrail.event_id': `${tag}-${b}-${i}`,
          'acktrail.stage': 'deliver',
          'acktrail.aggregate_type': 'order',
          'acktrail.aggregate_id': String(b * BODY_SPANS + i),
          'acktrail.queue': 'orders.confirmations',
          'acktrail.delivery.redelivered': false,
          'acktrail.delivery.attempt': 1,
          'messaging.system': 'rabbitmq',
          'messaging.operation.type': 'process',
          'messaging.destination.name': 'orders.events',
          'messaging.rabbitmq.destination.routing_key': 'order.created',
          'messaging.rabbitmq.message.delivery_tag': i + 1,
          'net.peer.name': '127.0.0.1',
        },
      })),
      'orders-worker',
    );
    const result = await exportSpans(`http://127.0.0.1:${port}`, spans, 'protobuf');
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
