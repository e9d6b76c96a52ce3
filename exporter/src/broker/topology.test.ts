// The broker's topology as a pure function of one answer (the management API's own field names and
// shapes, as RabbitMQ 3.10 to 4.x list them), and the journey path read through it alone: no
// collector, no refresh, no scrape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrokerAnswer, StatsQueue } from './answer.js';
import { buildTopology, Topology } from './topology.js';
import { assemble } from '../journeys/assemble/assemble.js';
import { EVENT, REJECT, T, span, stock, stored } from '../testing/journey-spans.js';

const queue = (name: string, over: Partial<StatsQueue> = {}): StatsQueue => ({
  vhost: 'shop',
  name,
  type: 'classic',
  node: 'rabbit@n1',
  arguments: {},
  effective_policy_definition: null,
  ...over,
});

const ANSWER: BrokerAnswer = {
  queues: [
    queue('payments.capture', { arguments: { 'x-dead-letter-exchange': 'payments.dlx' } }),
    queue('payments.refunds'),
    queue('payments.dlq'),
    queue('payments.audit', {
      type: 'quorum',
      leader: 'rabbit@n2',
      effective_policy_definition: { 'dead-letter-exchange': 'payments.dlx' },
    }),
  ],
  bindings: [
    {
      vhost: 'shop',
      source: 'payments.dlx',
      destination: 'payments.dlq',
      destination_type: 'queue',
      routing_key: '#',
    },
  ],
  exchanges: [{ vhost: 'shop', name: 'payments.dlx', type: 'topic', arguments: {} }],
  version: '4.1.0',
};

test('one answer, one snapshot: facts, roles, leaders and dead-letter relations', () => {
  const t = buildTopology(ANSWER, [], 1, T);
  assert.equal(t.loaded, true);
  assert.equal(t.queue('payments.capture')?.deadLetterExchange, 'payments.dlx');
  assert.equal(t.queue('payments.capture')?.deadLetterByPolicy, false);
  assert.equal(t.queue('payments.refunds')?.deadLetterExchange, null);
  assert.equal(t.queue('payments.audit')?.deliveryLimit, 20, 'a quorum queue on RabbitMQ 4');
  assert.equal(t.queue('payments.audit')?.deadLetterByPolicy, true);
  assert.equal(t.role('shop', 'payments.dlq'), 'dead_letter');
  assert.equal(t.leader('shop', 'payments.audit'), 'rabbit@n2');
  assert.equal(t.leader('shop', 'payments.capture'), 'rabbit@n1');
  assert.deepEqual(t.deadLetterSources('shop', 'payments.dlq')?.sort(), [
    'payments.audit',
    'payments.capture',
  ]);
  // Only the policy's dead-lettering makes a dead-letter queue parking consumes.
  assert.deepEqual(t.deadLetterQueues('shop'), ['payments.dlq']);
  assert.equal(t.has('payments.new'), false);
});

test('before the first refresh nothing is known, and nothing is made up', () => {
  const t = Topology.EMPTY;
  assert.equal(t.loaded, false);
  assert.equal(t.queue('payments.capture'), null);
  assert.equal(t.deadLetterSources('shop', 'payments.dlq'), null);
  assert.deepEqual(t.names(), []);
});

test("a snapshot is never changed by the next one: a reader keeps a whole answer's view", () => {
  const before = buildTopology(ANSWER, [], 1, T);
  const without = { ...ANSWER, queues: ANSWER.queues.filter((q) => q.name !== 'payments.capture') };
  const after = buildTopology(without, [], 2, T + 1000);
  assert.equal(before.queue('payments.capture')?.deadLetterExchange, 'payments.dlx');
  assert.equal(after.queue('payments.capture'), null);
});

test("the journey path through a topology alone: a reject's fate follows the queue's facts", () => {
  const spans = [span(stock.publish(0)), span(stock.deliver(10, 'payments.capture', REJECT))];
  const read = (t: Topology) =>
    assemble(
      EVENT,
      stored(spans, (q) => t.queue(q)),
      null,
      {
        nowMs: T + 60_000,
        stuckAfterSeconds: 60,
        unackedAfterSeconds: 30,
        failedStatus: null,
        words: { aggregate: 'payment', done: 'captured' },
        queues: (q) => t.queue(q),
      },
    ).kinds;
  assert.deepEqual(read(Topology.EMPTY), ['rejected'], 'not known: said so');
  assert.deepEqual(read(buildTopology(ANSWER, [], 1, T)), ['dead_lettered']);
  const noDlx = {
    ...ANSWER,
    queues: ANSWER.queues.map((q) => (q.name === 'payments.capture' ? queue(q.name) : q)),
  };
  assert.deepEqual(read(buildTopology(noDlx, [], 2, T)), ['discarded']);
});
