// The broker's topology as a pure function of one answer (the management API's own field names and
// shapes, as RabbitMQ 3.10 to 4.x list them), and the journey path read through it alone: no
// collector, no refresh, no scrape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrokerAnswer, StatsQueue } from './answer.js';
import { buildTopology, Topology } from './topology.js';
import { Slices } from '../runtime/slices.js';
import { assemble } from '../journeys/assemble/assemble.js';
import { EVENT, REJECT, T, span, stock, stored } from '../../testing/journey-spans.js';

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

test('one answer, one snapshot: facts, roles, leaders and dead-letter relations', async () => {
  const t = await buildTopology(ANSWER, [], 1, T);
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

test("a policy the listing does not say (3.10 before the queue's statistics, 4.x as shipped): the broker's rule applies it", async () => {
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
  const t = await buildTopology(answer, [], 1, T);
  assert.equal(t.queue('orders.work')?.deadLetterExchange, 'high.dlx', 'the highest priority');
  assert.equal(t.queue('orders.work')?.deadLetterByPolicy, true);
  assert.equal(t.queue('orders.audit')?.deadLetterExchange, 'quorum.dlx', 'apply-to its type');
  assert.equal(t.queue('mail.work')?.deadLetterExchange, null, 'no policy matches: none');
  assert.equal(t.queue('tie.work'), null, 'two policies of one priority that disagree: not known');
  assert.equal(t.queue('own.work')?.deadLetterExchange, 'own.args', 'its own argument wins');

  // Policies the broker would not list to this user: not known, unless the queue's own argument says.
  const unreadable = await buildTopology({ ...answer, policies: null }, [], 1, T);
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

test("a snapshot is never changed by the next one: a reader keeps a whole answer's view", async () => {
  const before = await buildTopology(ANSWER, [], 1, T);
  const without = { ...ANSWER, queues: ANSWER.queues.filter((q) => q.name !== 'payments.capture') };
  const after = await buildTopology(without, [], 2, T + 1000);
  assert.equal(before.queue('payments.capture')?.deadLetterExchange, 'payments.dlx');
  assert.equal(after.queue('payments.capture'), null);
});

test("the journey path through a topology alone: a reject's fate follows the queue's facts", async () => {
  const spans = [span(stock.publish(0)), span(stock.deliver(10, 'payments.capture', REJECT))];
  const withDlx = await buildTopology(ANSWER, [], 1, T);
  const noDlx = await buildTopology(
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

test("a policymaker's pattern runs in linear time; one RE2 cannot compile leaves its queues unknown", async () => {
  const unlisted = (name: string) => {
    const q = queue(name);
    delete q.effective_policy_definition;
    return q;
  };
  const policy = (name: string, pattern: string) => ({
    vhost: 'shop',
    name,
    pattern,
    'apply-to': 'queues',
    priority: 0,
    definition: { 'dead-letter-exchange': `${name}.dlx` },
  });
  // `^x\.p\.(a+)+$` over 27 `a` and a `!` held V8's engine for seconds, doubling per `a`.
  const hostile = `x.p.${'a'.repeat(40)}!`;
  const t = await buildTopology(
    {
      ...ANSWER,
      queues: [unlisted(hostile), unlisted('x.p.aaa')],
      policies: [policy('nested', '^x\\.p\\.(a+)+$')],
    },
    [],
    1,
    T,
  );
  assert.equal(t.queue(hostile)?.deadLetterExchange, null, 'no policy matches it');
  assert.equal(t.queue('x.p.aaa')?.deadLetterExchange, 'nested.dlx');

  const backref = await buildTopology(
    { ...ANSWER, queues: [unlisted('aa.work')], policies: [policy('twice', '^(a)\\1')] },
    [],
    1,
    T,
  );
  assert.equal(backref.queue('aa.work'), null, 'a back-reference: whether it applies is not known');
});

/** An answer of `n` queues, each dead-lettering by a key of its own into one topic exchange that has
 * a binding of its own to every queue: n * n routes to try, with keys of 20 words. */
function crowded(n: number): BrokerAnswer {
  const key = (i: number) => `${Array.from({ length: 19 }, (_, w) => `w${w}`).join('.')}.k${i}`;
  return {
    queues: Array.from({ length: n }, (_, i) =>
      queue(`q${i}`, {
        arguments: { 'x-dead-letter-exchange': 'crowd', 'x-dead-letter-routing-key': key(i) },
      }),
    ),
    bindings: Array.from({ length: n }, (_, i) => ({
      vhost: 'shop',
      source: 'crowd',
      destination: `q${i}`,
      destination_type: 'queue',
      routing_key: `#.${'#.*.'.repeat(i % 5)}k${(i + 1) % n}`,
    })),
    exchanges: [{ vhost: 'shop', name: 'crowd', type: 'topic', arguments: {} }],
    policies: [],
    version: '3.10.0',
  };
}

test('a topology of thousands of queues is built in slices: the event loop turns while it builds', async () => {
  let turns = 0;
  let building = true;
  const tick = () => {
    if (!building) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const t = await buildTopology(crowded(3000), [], 1, T);
  building = false;
  // q1's binding (`…k2`) takes q2's dead letters: each queue dead-letters into the one before.
  assert.deepEqual(t.deadLetterSources('shop', 'q1'), ['q2']);
  assert.deepEqual(t.deadLetterSources('shop', 'q2999'), ['q0']);
  assert.ok(turns > 0, 'the loop answered others during the build');
});

test("a build past its budget stops with the budget's reason; nothing half built is returned", async () => {
  await assert.rejects(
    buildTopology(
      crowded(3000),
      [],
      1,
      T,
      new Slices(AbortSignal.abort(new Error('budget spent'))),
    ),
    /budget spent/,
  );
});
