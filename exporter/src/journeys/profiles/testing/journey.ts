// One message's journey from an SDK's shape (<id>/<id>.shape.ts), through the receiver as real
// spans go: decoded shape -> normalise -> the broker's topology (the queue from the bindings) ->
// the assembler. The SDKs' journey tests (journeys.test.ts, <id>/<id>.test.ts) share it.
import assert from 'node:assert/strict';
import { ExchangeIndex } from '../../../broker/routes.js';
import type { QueueFacts } from '../../../broker/topology.js';
import { classic } from '../../../../testing/journey-spans.js';
import { assemble, type Journey } from '../../assemble/assemble.js';
import type { BrokerEvidence } from '../../model/evidence.js';
import type { CounterReading } from '../../model/inference.js';
import type { StoredRow } from '../../model/steps.js';
import { rootsOf } from '../../service.js';
import { withQueueAnomalies } from '../../spans/convert.js';
import { normalise } from '../../spans/normalize.js';
import { PROFILES } from '../registry.js';
import { shapeNamed } from './shapes.js';
import { received, shapeSpans, type Message, type SdkShape, type Settle } from './shape.js';

export const T = Date.parse('2026-12-03T12:00:00Z');
export const MESSAGE: Message = {
  exchange: 'shop',
  routingKey: 'order.created',
  queue: 'shop.work',
  messageId: 'b1f0c4de-7a2e-4c61-9a3d-5e8f0d2c1a77',
  deliveryTag: 1,
  bodySize: 64,
};
const QUEUES: Record<string, QueueFacts> = {
  'shop.work': classic('shop.dlx'),
  'shop.dlq': { ...classic(null), role: 'dead_letter' },
};
export const queues = (q: string) => QUEUES[q] ?? null;
const binding = (source: string, destination: string, key: string) => ({
  vhost: '/',
  source,
  destination,
  destination_type: 'queue',
  routing_key: key,
});
export const EXCHANGES = new ExchangeIndex(
  [
    binding('', 'shop.work', 'shop.work'),
    binding('shop', 'shop.work', 'order.created'),
    binding('shop.dlx', 'shop.dlq', '#'),
  ],
  [
    { vhost: '/', name: 'shop', type: 'direct' },
    { vhost: '/', name: 'shop.dlx', type: 'topic' },
  ],
);

export const ACK: Settle = { op: 'ack' };
export const REJECT: Settle = { op: 'reject', requeue: false };
export const REQUEUE: Settle = { op: 'nack', requeue: true };
export const NONE: Settle = { op: 'none' };
/** What dead-letter parking records of the rejected message: x-death names shop.work. */
export const PARKED: BrokerEvidence = {
  parked: [
    {
      id: '1',
      queue: 'shop.dlq',
      from: 'shop.work',
      reason: 'rejected',
      reasonSource: 'x-death',
      deathReason: 'rejected',
      state: 'parked',
      parkedAt: new Date(T + 150),
    },
  ],
};

/** The journey of one message's spans, as the receiver stores and the service assembles them. */
export function journeyOf(
  name: string | SdkShape,
  settles: Settle[],
  broker: BrokerEvidence = { parked: [] },
  m: Message = MESSAGE,
): { journey: Journey; steps: StoredRow[] } {
  const shape = typeof name === 'string' ? shapeNamed(name) : name;
  const spans = shapeSpans(shape, m, settles, T).map((d) => received(d));
  const steps = spans.flatMap((s) => {
    const n = normalise(s, { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER }, queues);
    // A receive span of its own (Bunny's) is no step: its child, the process span, is.
    if (n.kind === 'ignored' && shape.receive && s.name === shape.receive(m).name) return [];
    if (n.kind !== 'steps') assert.fail(`${shape.name}: ${s.name} is ${n.kind}`);
    return n.steps;
  });
  withQueueAnomalies(steps, queues, EXCHANGES);
  // One journey: every step's key leads to the same root (journeys/service.ts).
  const roots = new Set(
    rootsOf(
      steps[0]!.traceId,
      steps.map((s) => ({
        eventId: s.eventId,
        stage: s.stage,
        spanId: s.spanId,
        messageKey: (s.attrs['acktrail.message_key'] as string | undefined) ?? null,
      })),
    ).values(),
  );
  assert.equal(roots.size, 1, `${shape.name}: one journey, not ${[...roots].join(', ')}`);
  const journey = assemble([...roots][0]!, steps, null, {
    nowMs: T + 3_600_000,
    stuckAfterSeconds: 60,
    unackedAfterSeconds: 30,
    failedStatus: null,
    words: { aggregate: 'order', done: 'processed' },
    queues,
    broker,
  });
  return { journey, steps };
}

/** The name its users know a shape's SDK by. */
export const sdkOf = (name: string): string => PROFILES[shapeNamed(name).profile].sdk;

export const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A reading of shop.work's counters `s` seconds after T. */
export const counters = (
  s: number,
  delivered: number,
  acked: number,
  unacked: number,
  consumers = 1,
): CounterReading => ({
  queue: 'shop.work',
  atMs: T + s * 1000,
  delivered,
  acked,
  unacked,
  consumers,
});

/** The broker's counters (and where dead letters are parked) as the settle inference reads them. */
export const evidence = (
  readings: CounterReading[],
  watched: string | null = null,
  nowMs = T + 3_600_000,
): BrokerEvidence => ({
  parked: [],
  settle: {
    nowMs,
    boundMs: 30_000,
    readings,
    watched: (q) => (q === 'shop.work' && watched ? { queue: watched, by: 'parking' } : null),
    // The publish's bindings reach shop.work alone (Bunny's delivery names no queue).
    publishedTo: 'shop.work',
  },
});
/** Ten delivered and acked before; three more (this one among them) after, all acked. */
export const CLEAN = [counters(-30, 10, 10, 0), counters(60, 13, 13, 0)];
/** The same, one of the three not acked. */
export const DIRTY = [counters(-30, 10, 10, 0), counters(60, 13, 12, 0)];

/** A span of the given scope, as the receiver decodes it (for spans no shape writes). */
export const spanOf = (
  scope: string,
  name: string,
  kind: number,
  attributes: Record<string, string>,
) => ({
  traceId: 'ab'.repeat(16),
  spanId: 'cd'.repeat(8),
  parentSpanId: 'ef'.repeat(8),
  name,
  kind,
  startUs: T * 1000,
  endUs: T * 1000 + 5,
  attributes: new Map<string, string>(Object.entries(attributes)),
  statusCode: 1,
  statusMessage: '',
  service: 'shop-worker',
  scope: { name: scope, version: '' },
  links: [],
  traceState: '',
});

/** A window that takes every span. */
export const ALL_TIME = { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER };

/** The queue a journey's (first) delivery names, and whether its span named it or it was inferred. */
export function deliveredQueue(steps: readonly StoredRow[]): [unknown, 'named' | 'inferred'] {
  const deliver = steps.find((s) => s.stage === 'deliver');
  assert.ok(deliver, 'a delivery step');
  const inferred = deliver.attrs['acktrail.queue.inferred'] === true;
  return [deliver.attrs['acktrail.queue'], inferred ? 'inferred' : 'named'];
}
