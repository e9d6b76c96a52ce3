import assert from 'node:assert/strict';
import test from 'node:test';
import type { ConsumeMessage } from 'amqplib';
import { AckWindow } from './acks.js';

/** Deliveries of one channel, tags 1..n, and the acks the window sends, as the broker reads them. */
function channel(n: number) {
  const msgs = Array.from(
    { length: n },
    (_, i) => ({ fields: { deliveryTag: i + 1 } }) as unknown as ConsumeMessage,
  );
  const acked = new Set<number>();
  const calls: string[] = [];
  const window = new AckWindow({
    ack(msg, allUpTo) {
      const tag = msg.fields.deliveryTag;
      calls.push(allUpTo ? `<=${tag}` : `${tag}`);
      // What RabbitMQ does: multiple acks every outstanding tag up to this one.
      for (let t = allUpTo ? 1 : tag; t <= tag; t++) acked.add(t);
    },
  });
  return { msgs, acked, calls, window, m: (tag: number) => msgs[tag - 1]! };
}

test('a committed run at the front is acked with one multiple ack; one behind a pending delivery waits', () => {
  const { msgs, acked, calls, window, m } = channel(6);
  for (const msg of msgs) window.received(msg);
  window.committed([m(4), m(5), m(6)]); // the second batch commits first
  assert.deepEqual(calls, [], 'nothing before the first batch commits');
  window.committed([m(1), m(2), m(3)]);
  assert.deepEqual(calls, ['<=6']);
  assert.deepEqual([...acked].sort(), [1, 2, 3, 4, 5, 6]);
  assert.equal(window.size, 0);
});

test('a held (too-large) delivery is never acked, not even by a multiple ack past it', () => {
  const { msgs, acked, calls, window, m } = channel(6);
  for (const msg of msgs) window.received(msg, msg === m(3));
  window.committed([m(1), m(2), m(4), m(5)]);
  assert.deepEqual(calls, ['<=2', '5', '4']);
  window.committed([m(6)]);
  assert.deepEqual(calls, ['<=2', '5', '4', '6']);
  assert.ok(!acked.has(3), 'the held one stays in the queue');
  assert.equal(window.size, 1);
});

test('a single committed delivery is acked without multiple', () => {
  const { msgs, calls, window, m } = channel(2);
  for (const msg of msgs) window.received(msg);
  window.committed([m(1)]);
  assert.deepEqual(calls, ['1']);
});

test('a delivery being set aside waits like a pending one; held when it could not be, the others behind it are acked alone', () => {
  const { msgs, acked, calls, window, m } = channel(5);
  for (const msg of msgs) window.received(msg);
  window.committed([m(1), m(3), m(4)]); // 2 is being set aside
  assert.deepEqual(calls, ['1'], 'nothing past the one in flight');
  window.hold(m(2)); // its copy was not confirmed: it stays in the queue
  assert.deepEqual(calls, ['1', '4', '3']);
  window.committed([m(5)]);
  assert.ok(!acked.has(2));
  assert.deepEqual([...acked].sort(), [1, 3, 4, 5]);
  window.hold(m(5)); // acked already: nothing to hold
  assert.equal(window.size, 1);
});
