// The parker between the dead-letter queues and the store: batches of at most half the prefetch,
// acks only after the commit, the store down (held, retried, the part down then up), a row the
// store refuses for its content found by splitting and set aside as unstorable, a redelivered
// copy not counted twice, and nothing taken once closed. The store here is a fake that answers
// as DeadLetterStore.park does; the channel records the acks as RabbitMQ applies them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Channel, ConsumeMessage } from 'amqplib';
import pino from 'pino';
import { Registry } from 'prom-client';
import { waitFor } from '@acktrail/testing';
import { Health } from '../../runtime/health.js';
import { DeadLetterMetrics } from '../model/metrics.js';
import type { ParkRow } from '../store/park.js';
import type { DeadLetterStore } from '../store/store.js';
import { Parker } from './parker.js';

const PART = 'dead_letters';

function row(id: string, more: Partial<ParkRow> = {}): ParkRow {
  return {
    vhost: '/',
    queue: 'work.dead',
    eventId: id,
    messageKey: null,
    reason: 'rejected',
    reasonSource: 'x-death',
    reasonGroup: 'rejected',
    exchange: '',
    routingKey: 'work',
    replay: null,
    deaths: [],
    bodyBytes: 2,
    keyId: 'k1',
    sealed: Buffer.from('sealed'),
    fingerprint: `fp-${id}`,
    replayedFrom: null,
    redelivered: false,
    ...more,
  };
}

/** A store that parks what it is given, or fails as `answer` says; each call is recorded. */
function fakeStore(answer: (rows: ParkRow[]) => Error | null = () => null) {
  const calls: string[][] = [];
  const parkedIds = new Set<string>();
  const store = {
    park: (rows: ParkRow[]) => {
      calls.push(rows.map((r) => r.eventId!));
      const err = answer(rows);
      if (err) return Promise.reject(err);
      // A redelivered copy of a message parked before is not a new row.
      return Promise.resolve(
        rows.map((r) => {
          const fresh = !parkedIds.has(r.eventId!);
          parkedIds.add(r.eventId!);
          return fresh;
        }),
      );
    },
  };
  return { store: store as unknown as DeadLetterStore, calls };
}

function setup(prefetch: number, answer?: (rows: ParkRow[]) => Error | null) {
  const registry = new Registry();
  const log = pino({ level: 'silent' });
  const health = new Health(registry, log);
  health.register(PART);
  const metrics = new DeadLetterMetrics(registry);
  const { store, calls } = fakeStore(answer);
  const stop = new AbortController();
  const parker = new Parker(prefetch, store, metrics, health, PART, log, stop.signal);
  const acked: number[] = [];
  const ch = {
    ack(msg: ConsumeMessage, allUpTo?: boolean) {
      const tag = msg.fields.deliveryTag;
      for (let t = allUpTo ? 1 : tag; t <= tag; t++) if (!acked.includes(t)) acked.push(t);
    },
  } as unknown as Channel;
  parker.opened(ch);
  let tag = 0;
  const msg = () => ({ fields: { deliveryTag: ++tag } }) as unknown as ConsumeMessage;
  const deliver = (r: ParkRow) => {
    parker.received(ch, msg(), r);
  };
  /** A too-large delivery, and where its copy went (null: it could not be set aside). */
  const deliverLarge = (r: ParkRow, aside: Promise<string | null>) => {
    parker.settingAside(ch, msg(), r, aside);
  };
  const counted = async (name: string) =>
    (await registry.getSingleMetric(name)!.get()).values.reduce((n, v) => n + v.value, 0);
  return { parker, deliver, deliverLarge, acked, calls, health, counted, stop };
}

test('batches of at most half the prefetch, two at once; each delivery acked once its row is committed', async () => {
  const { deliver, acked, calls, counted } = setup(4);
  for (const id of ['a', 'b', 'c', 'd', 'e']) deliver(row(id));
  await waitFor('all five acked', () => acked.length === 5);
  assert.ok(
    calls.every((c) => c.length <= 2),
    `batches ${JSON.stringify(calls)}`,
  );
  assert.deepEqual(calls.flat().sort(), ['a', 'b', 'c', 'd', 'e']);
  assert.equal(await counted('acktrail_dead_letters_parked_total'), 5);
});

test('store down: nothing acked, the part down; retried until it commits, then the part up', async () => {
  let down = true;
  const { deliver, acked, calls, health } = setup(10, () =>
    down ? Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }) : null,
  );
  deliver(row('a'));
  await waitFor('the part reported down', () => health.statusOf(PART).up === false);
  assert.deepEqual(acked, [], 'held unacked while the store is down');
  down = false;
  await waitFor('acked after the store came back', () => acked.length === 1, { timeoutMs: 30_000 });
  assert.ok(calls.length >= 2, 'the same batch written again');
  assert.equal(health.statusOf(PART).up, true);
});

test('a row the store refuses for its content is found by splitting and set aside as unstorable; the others park', async () => {
  const bad = (rows: ParkRow[]) =>
    rows.some((r) => r.eventId === 'c' && !r.unstorable)
      ? Object.assign(new Error('invalid byte sequence'), { code: '22021' })
      : null;
  const { deliver, acked, calls, counted } = setup(16, bad);
  for (const id of ['a', 'b', 'c', 'd']) deliver(row(id));
  await waitFor('all four acked', () => acked.length === 4);
  assert.ok(
    calls.some((c) => c.length === 1 && c[0] === 'c'),
    'c was tried alone',
  );
  assert.equal(await counted('acktrail_dead_letters_unstorable_total'), 1);
  assert.equal(await counted('acktrail_dead_letters_parked_total'), 3);
});

test('a redelivered copy of a parked message is acked and not counted again', async () => {
  const { deliver, acked, counted } = setup(4);
  deliver(row('a'));
  await waitFor('the first acked', () => acked.length === 1);
  deliver(row('a', { redelivered: true }));
  await waitFor('the copy acked', () => acked.length === 2);
  assert.equal(await counted('acktrail_dead_letters_parked_total'), 1);
});

test('a too-large message that could not be set aside is listed but never acked; the next is acked alone', async () => {
  const { deliver, deliverLarge, acked, calls } = setup(4);
  deliverLarge(row('big', { sealed: null }), Promise.resolve(null));
  deliver(row('small'));
  await waitFor('both committed', () => calls.flat().length === 2);
  await waitFor('the small one acked', () => acked.length === 1);
  assert.deepEqual(acked, [2], 'no multiple ack takes the held one along');
});

test('a too-large message set aside is listed, counted and acked once its copy is confirmed', async () => {
  const { deliverLarge, acked, counted } = setup(4);
  const { promise, resolve } = Promise.withResolvers<string | null>();
  deliverLarge(row('big', { sealed: null }), promise);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(acked, [], 'not before the copy is confirmed');
  resolve('dead.aside');
  await waitFor('acked after the copy', () => acked.length === 1);
  assert.equal(await counted('acktrail_dead_letters_set_aside_total'), 1);
});

test('closed: nothing more is taken', async () => {
  const { parker, deliver, calls } = setup(4);
  parker.close();
  deliver(row('a'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(calls, []);
});
