import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heapAfterGc } from '@acktrail/testing';
import { parseCounters } from './counters.js';
import { parseDetailed, queueKey } from './detailed.js';
import { parseSamples } from '../../exposition/text.js';

const MiB = 1024 * 1024;

const TEXT = `# TYPE rabbitmq_detailed_queue_messages_ready gauge
# HELP rabbitmq_detailed_queue_messages_ready Messages ready to be delivered to consumers
rabbitmq_detailed_queue_messages_ready{vhost="/",queue="orders"} 7
rabbitmq_detailed_queue_messages_ready{queue="we\\"ird,{q}",vhost="a\\\\b"} 2
rabbitmq_detailed_queue_messages_unacked{vhost="/",queue="orders"} 3
rabbitmq_detailed_queue_messages{vhost="/",queue="orders"} 10
rabbitmq_detailed_queue_consumers{vhost="/",queue="orders"} 1
rabbitmq_detailed_queue_consumers{vhost="/",queue="broken} 1
telemetry_scrape_duration_seconds{quantile="0.5"} 0.01
rabbitmq_build_info 1
rabbitmq_identity_info{rabbitmq_node="rabbit@n1",rabbitmq_cluster="c"} 1
`;

test('depths per queue, any label order, escapes, unknown and broken lines skipped', () => {
  const { queues, node } = parseDetailed(TEXT);
  assert.equal(node, 'rabbit@n1');
  assert.equal(parseDetailed('').node, null);
  assert.deepEqual(
    [...queues.values()],
    [
      { vhost: '/', queue: 'orders', ready: 7, unacked: 3, consumers: 1 },
      { vhost: 'a\\b', queue: 'we"ird,{q}', ready: 2, unacked: 0, consumers: 0 },
    ],
  );
});

function parseFresh(answer: () => string) {
  return parseDetailed(answer());
}

test('what is parsed from an answer does not keep the answer alive', async () => {
  const node = `rabbit@${'n'.repeat(20)}`;
  const before = await heapAfterGc();
  // Built at run time, as an HTTP answer is (32 MiB), in a frame of its own that ends with the
  // parse: a literal would live as long as the code, a local as long as this test's frame.
  const kept = parseFresh(() => TEXT.replace('rabbit@n1', node) + '#'.repeat(32 * MiB));
  const held = (await heapAfterGc()) - before;
  assert.equal(kept.node, node);
  assert.equal(kept.queues.size, 2);
  assert.ok(held < 8 * MiB, `${(held / MiB).toFixed(1)} MiB still held after the parse`);
});

test('samples without labels and special values', () => {
  const s = parseSamples(
    'up 1\nx{a="1"} +Inf\nx{a="2"} NaN\nx{a="3"} -2.5e3 1700000000\n',
    new Set(['up', 'x']),
  );
  assert.deepEqual(s, [
    { name: 'up', labels: {}, value: 1 },
    { name: 'x', labels: { a: '1' }, value: Infinity },
    { name: 'x', labels: { a: '3' }, value: -2500 },
  ]);
});

// RabbitMQ 4.0 keeps a deleted queue's consumer and process families until its metrics garbage
// collection (up to two minutes); only queue_coarse_metrics goes at once.
test('a queue whose depth the broker no longer reports is gone, whatever else lingers', () => {
  const lingering = `rabbitmq_detailed_queue_messages_ready{vhost="/",queue="orders"} 1
rabbitmq_detailed_queue_consumers{vhost="/",queue="orders"} 1
rabbitmq_detailed_queue_consumers{vhost="/",queue="deleted"} 0
rabbitmq_detailed_queue_messages_acked_total{vhost="/",queue="deleted"} 4
rabbitmq_detailed_queue_messages_acked_total{vhost="/",queue="orders"} 2
`;
  assert.deepEqual([...parseDetailed(lingering).queues.keys()], [queueKey('/', 'orders')]);
  const counters = parseCounters(
    `# TYPE rabbitmq_detailed_queue_messages_acked_total counter\n${lingering}`,
  );
  assert.deepEqual([...(counters?.keys() ?? [])], [queueKey('/', 'orders')]);
  assert.equal(counters?.get(queueKey('/', 'orders'))?.ack, 2);
});
