import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heapAfterGc } from '@acktrail/testing';
import { parseCounters } from './counters.js';
import { parseDetailed, queueKey, queueSeries } from './detailed.js';
import { SeriesReader, parseSamples } from '../../../exposition/text.js';

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
    'up 1\nx{a="1"} +Inf\nx{a="2"} NaN\nx{a="3"} -2.5e3 1700000000\nx{a="4"} constructor\n',
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

test("a node's next answer finds its series by their labels' text, read once; any line still reads", () => {
  const made: string[] = [];
  const series = new SeriesReader((labels) => {
    made.push(labels.queue ?? '');
    return labels.queue === undefined
      ? null
      : { key: queueKey(labels.vhost!, labels.queue), vhost: labels.vhost!, queue: labels.queue };
  });
  const first = parseDetailed(TEXT, series);
  assert.deepEqual(made, ['orders', 'we"ird,{q}']);
  // The same series again, one with a timestamp (read the long way), one new, one gone.
  const next = `rabbitmq_detailed_queue_messages_ready{vhost="/",queue="orders"} 8
rabbitmq_detailed_queue_messages_ready{vhost="/",queue="new"} 1 1700000000000
rabbitmq_detailed_queue_messages_unacked{vhost="/",queue="orders"} 4
rabbitmq_detailed_queue_consumers{vhost="/",queue="orders"} +Inf
`;
  const second = parseDetailed(next, series);
  assert.deepEqual(made, ['orders', 'we"ird,{q}', 'new']);
  assert.deepEqual(
    [...second.queues.values()],
    [
      { vhost: '/', queue: 'orders', ready: 8, unacked: 4, consumers: Infinity },
      { vhost: '/', queue: 'new', ready: 1, unacked: 0, consumers: 0 },
    ],
  );
  assert.equal(second.node, null);
  assert.equal(first.queues.get(queueKey('/', 'orders'))?.ready, 7, 'each answer its own depths');
  // A block that is not the labels alone names nothing.
  assert.equal(
    parseDetailed('rabbitmq_detailed_queue_messages_ready{vhost="/",queue="x"}} 1\n', series).queues
      .size,
    0,
  );
});

test('a reader kept from one answer to the next keeps none of the answers', async () => {
  const series = queueSeries();
  const before = await heapAfterGc();
  for (let i = 0; i < 3; i++)
    parseDetailed(
      TEXT.replace('orders', `orders-${'o'.repeat(20)}`) + '#'.repeat(32 * MiB),
      series,
    );
  const held = (await heapAfterGc()) - before;
  assert.equal(parseDetailed(TEXT, series).queues.size, 2);
  assert.ok(held < 8 * MiB, `${(held / MiB).toFixed(1)} MiB still held by the reader`);
});

test("counters from an endpoint that answers as another node are refused, as depths' are", () => {
  const answer = `# TYPE rabbitmq_detailed_queue_messages_acked_total counter
rabbitmq_identity_info{rabbitmq_node="rabbit@a",rabbitmq_cluster="c"} 1
rabbitmq_detailed_queue_messages_ready{vhost="/",queue="orders"} 1
rabbitmq_detailed_queue_messages_acked_total{vhost="/",queue="orders"} 2
`;
  assert.throws(() => parseCounters(answer, 'rabbit@b', 'http://b:15692'), /answers as rabbit@a/);
  assert.equal(
    parseCounters(answer, 'rabbit@a', 'http://a:15692')?.get(queueKey('/', 'orders'))?.ack,
    2,
  );
  assert.equal(parseDetailed(answer).node, 'rabbit@a');
});

test("a queue's consumer capacity is its queue_metrics sample, not a sum; absent, it is unknown", () => {
  const answer = `# TYPE rabbitmq_detailed_queue_messages_acked_total counter
rabbitmq_detailed_queue_messages_ready{vhost="/",queue="busy"} 4
rabbitmq_detailed_queue_messages_ready{vhost="/",queue="older"} 0
rabbitmq_detailed_queue_consumers{vhost="/",queue="busy"} 2
rabbitmq_detailed_queue_consumer_capacity{vhost="/",queue="busy"} 0.25
rabbitmq_detailed_queue_consumer_utilisation{vhost="/",queue="busy"} 0.25
rabbitmq_detailed_queue_process_memory_bytes{vhost="/",queue="busy"} 68000
`;
  const counted = parseCounters(answer);
  assert.ok(counted);
  assert.equal(counted.get(queueKey('/', 'busy'))?.capacity, 0.25);
  assert.equal(counted.get(queueKey('/', 'busy'))?.consumers, 2);
  assert.equal(counted.get(queueKey('/', 'older'))?.capacity, null);
});
