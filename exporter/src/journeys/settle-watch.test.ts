// Which queues the broker's evidence is kept for: those whose consumers record no settle, from
// their first silent delivery on, with the reading from before it; and which count their dead
// letters from parking (no consumer of theirs records a reject).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SettleWatch, type CountedQueue } from './settle-watch.js';

const deliver = (queue: string, sdk: string) => ({
  stage: 'deliver' as const,
  attrs: { 'acktrail.queue': queue, 'acktrail.sdk': sdk },
});
const answer = (delivered: number): CountedQueue[] =>
  ['pika.work', 'node.work'].map((queue) => ({
    vhost: '/',
    queue,
    counted: { deliver_get: delivered, ack: delivered, unacked: 0, consumers: 1 },
  }));

test('a queue is watched from its first silent delivery, with the readings from before it', () => {
  const w = new SettleWatch();
  const T = 1_800_000_000_000;
  assert.deepEqual(w.readings(T, answer(10), T), [], 'nothing watched yet');
  w.noteSteps([deliver('pika.work', 'python-pika')], () => [], T + 1);
  const written = w.readings(T + 60_000, answer(12), T + 60_000);
  // The reading before the delivery, then this answer's: pika.work's only.
  assert.deepEqual(
    written.map((r) => [r.queue, r.atMs, r.delivered]),
    [
      ['pika.work', T, 10],
      ['pika.work', T + 60_000, 12],
    ],
  );
  assert.deepEqual(
    w.readings(T + 120_000, answer(13), T + 120_000).map((r) => r.atMs),
    [T + 120_000],
    'backfilled once',
  );
  // Unchanged: kept for three minutes after the change (they close its windows), then seldom.
  assert.equal(w.readings(T + 180_000, answer(13), T + 180_000).length, 1);
  assert.deepEqual(w.readings(T + 400_000, answer(13), T + 400_000), [], 'quiet since');
  assert.equal(w.readings(T + 900_000, answer(13), T + 900_000).length, 1, 'once in ten minutes');
});

test('a publish watches the queues its exchange routes it to (a delivery naming none: Bunny)', () => {
  const w = new SettleWatch();
  const T = Date.now();
  const publish = {
    stage: 'publish' as const,
    attrs: {
      'messaging.destination.name': 'shop',
      'messaging.rabbitmq.destination.routing_key': 'order.created',
    },
  };
  w.noteSteps([publish], (exchange, key) =>
    exchange === 'shop' && key === 'order.created' ? ['node.work'] : [],
  );
  assert.deepEqual(
    w.readings(T, answer(1), T).map((r) => r.queue),
    ['node.work'],
  );
});

test('dead letters are counted from parking only where no consumer of the queue records rejects', () => {
  const w = new SettleWatch();
  w.noteSteps([deliver('pika.work', 'python-aio-pika'), deliver('mixed.work', 'dotnet-client')]);
  w.noteSteps([deliver('mixed.work', 'node-amqplib')]);
  assert.equal(w.recordsRejects('pika.work'), false);
  assert.equal(w.recordsRejects('mixed.work'), true, 'a Node consumer counts its own rejects');
  assert.equal(w.recordsRejects('never.seen'), false, 'nobody traced counts it');
  assert.equal(w.isTraced('mixed.work'), true);
  assert.equal(w.isTraced('never.seen'), false);
});
