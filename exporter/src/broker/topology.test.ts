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
  policies: [],
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

test("a policy the listing does not say (3.10 before the queue's statistics, 4.x as shipped): the broker's rule applies it", () => {
  const unlisted = (name: string, type = 'classic') => {
    const q = queue(name, { type });
    delete q.effective_policy_definition;
    return q;
  };
  const policy = (name: string, pattern: string, priority: number, applyTo = 'queues') => ({
    vhost: 'shop',
    name,
    pattern,
    'apply-to': applyTo,
    priority,
    definition: { 'dead-letter-exchange': `${name}.dlx` },
  });
  const answer: BrokerAnswer = {
    ...ANSWER,
    queues: [
      unlisted('orders.work'),
      unlisted('orders.audit', 'quorum'),
      unlisted('mail.work'),
      unlisted('tie.work'),
      unlisted('own.work'),
    ],
    policies: [
      policy('low', '^orders\\.', 0),
      policy('high', '^orders\\.work$', 5),
      policy('quorum', '^orders\\.audit$', 9, 'quorum_queues'),
      policy('exchanges', '.*', 99, 'exchanges'),
      policy('tie-a', '^tie\\.', 1),
      policy('tie-b', '^tie\\.', 1),
      policy('own', '^own\\.', 1),
    ],
  };
  answer.queues[4]!.arguments = { 'x-dead-letter-exchange': 'own.args' };
  const t = buildTopology(answer, [], 1, T);
  assert.equal(t.queue('orders.work')?.deadLetterExchange, 'high.dlx', 'the highest priority');
  assert.equal(t.queue('orders.work')?.deadLetterByPolicy, true);
  assert.equal(t.queue('orders.audit')?.deadLetterExchange, 'quorum.dlx', 'apply-to its type');
  assert.equal(t.queue('mail.work')?.deadLetterExchange, null, 'no policy matches: none');
  assert.equal(t.queue('tie.work'), null, 'two policies of one priority that disagree: not known');
  assert.equal(t.queue('own.work')?.deadLetterExchange, 'own.args', 'its own argument wins');

  // Policies the broker would not list to this user: not known, unless the queue's own argument says.
  const unreadable = buildTopology({ ...answer, policies: null }, [], 1, T);
  assert.equal(unreadable.queue('mail.work'), null);
  assert.equal(unreadable.has('mail.work'), false);
  assert.equal(unreadable.queue('own.work')?.deadLetterExchange, 'own.args');
  assert.equal(unreadable.role('shop', 'mail.work'), 'work', 'its role is known all the same');
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
  const withDlx = buildTopology(ANSWER, [], 1, T);
  const noDlx = buildTopology(
    {
      ...ANSWER,
      queues: ANSWER.queues.map((q) => (q.name === 'payments.capture' ? queue(q.name) : q)),
    },
    [],
    2,
    T,
  );
  /** Stored with what `then` knew, read with what `now` knows. */
  const read = (then: Topology, now: Topology) =>
    assemble(
      EVENT,
      stored(spans, (q) => then.queue(q)),
      null,
      {
        nowMs: T + 60_000,
        stuckAfterSeconds: 60,
        unackedAfterSeconds: 30,
        failedStatus: null,
        words: { aggregate: 'payment', done: 'captured' },
        queues: (q) => now.queue(q),
      },
    ).kinds;
  assert.deepEqual(read(Topology.EMPTY, Topology.EMPTY), ['rejected'], 'not known: said so');
  assert.deepEqual(read(withDlx, withDlx), ['dead_lettered']);
  assert.deepEqual(read(noDlx, noDlx), ['discarded']);
  // Not known when stored: decided when read, from the facts known then.
  assert.deepEqual(read(Topology.EMPTY, withDlx), ['dead_lettered']);
  // Known when stored: a policy that removed the dead-letter exchange since changes nothing.
  assert.deepEqual(read(withDlx, noDlx), ['dead_lettered']);
});
