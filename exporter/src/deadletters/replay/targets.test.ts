// Replay targets, forged as a producer would: headers and x-death entries pointing at the default
// exchange, at another queue, or at an exchange that does not reach the queue that failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../config.js';
import { RoutingGraph } from '../../broker/reach.js';
import type { BindingInfo } from '../../broker/roles.js';
import type { ExchangeInfo } from '../../broker/routes.js';
import { Slices } from '../../runtime/slices.js';
import { deadLetterSources } from '../../broker/dead-lettering.js';
import type { Death, ReplayTarget } from '../model/message.js';
import { globMatch, replayTarget, type Topology } from './targets.js';

const vhost = '/';
const queues = [
  { vhost, name: 'jobs.work', deadLetterExchange: 'jobs.dlx', deadLetterRoutingKey: null },
  { vhost, name: 'jobs.dlq', deadLetterExchange: null, deadLetterRoutingKey: null },
  { vhost, name: 'celery', deadLetterExchange: null, deadLetterRoutingKey: null },
  // An app user's: dead-letters into the shared DLX, bound beside the refunds queue.
  { vhost, name: 'trap', deadLetterExchange: 'jobs.dlx', deadLetterRoutingKey: null },
  { vhost, name: 'payments.refunds', deadLetterExchange: null, deadLetterRoutingKey: null },
];
const bindings: BindingInfo[] = [
  {
    vhost,
    source: 'jobs',
    destination: 'jobs.work',
    destination_type: 'queue',
    routing_key: 'job',
  },
  {
    vhost,
    source: 'jobs.dlx',
    destination: 'jobs.dlq',
    destination_type: 'queue',
    routing_key: '',
  },
  {
    vhost,
    source: 'jobs',
    destination: 'celery',
    destination_type: 'queue',
    routing_key: 'celery',
  },
  ...['trap', 'payments.refunds'].map((destination) => ({
    vhost,
    source: 'payments.commands',
    destination,
    destination_type: 'queue',
    routing_key: 'refund.all',
  })),
];
const exchanges: ExchangeInfo[] = [
  { vhost, name: 'jobs', type: 'direct' },
  { vhost, name: 'jobs.dlx', type: 'fanout' },
  { vhost, name: 'payments.commands', type: 'direct' },
];
const key = (q: string) => `${vhost}\u0000${q}`;
const topologyOf = async (b: BindingInfo[], e: ExchangeInfo[]): Promise<Topology> => {
  const sources = await deadLetterSources(queues, b, e, new Slices());
  const graph = new RoutingGraph(b, e);
  return {
    deadLetterQueues: () => [],
    deadLetterSources: (_v, q) => sources.get(key(q)) ?? [],
    reach: (v, exchange, rk) => graph.reach(v, exchange, rk),
  };
};
const topology = await topologyOf(bindings, exchanges);

const death = (queue: string, exchange: string, rk: string): Death => ({
  queue,
  reason: 'rejected',
  count: 1,
  exchange,
  routingKeys: [rk],
  time: null,
});
const defaults = loadConfig({}).deadLetters;
/** jobs.work is the configured source queue, as an operator of this pipeline would name it. */
const settings = (over: object = {}): typeof defaults => ({
  ...defaults,
  replay: { ...defaults.replay, sourceQueues: ['jobs.work'] },
  ...over,
});
const row = (replayTo: ReplayTarget | null, deaths: Death[]) => ({
  vhost,
  queue: 'jobs.dlq',
  replayTo,
  deaths,
});
const real = death('jobs.work', 'jobs', 'job');

test('globMatch: * matches any run, everything else itself', () => {
  assert.ok(globMatch('orders.*', 'orders.events'));
  assert.ok(globMatch('*', ''));
  assert.ok(globMatch('a*b*c', 'aXbYc'));
  assert.ok(!globMatch('a*b*c', 'aXcYb'));
  assert.ok(!globMatch('orders', 'orders.events'));
  assert.ok(!globMatch('ab*ba', 'aba'), 'the ends may not overlap');
});

test("the broker's own record of a queue that dead-letters here is allowed", () => {
  const d = replayTarget(row(null, [real]), settings(), topology);
  assert.deepEqual(d, {
    allowed: true,
    basis: 'claimed',
    target: { exchange: 'jobs', routingKey: 'job', source: 'x-death' },
  });
  const fromHeaders = replayTarget(
    row({ exchange: 'jobs', routingKey: 'job', source: 'headers' }, [real]),
    settings(),
    topology,
  );
  assert.equal(fromHeaders.allowed, true, 'headers may pick an allowed target');
});

test('headers that point elsewhere are refused, with the reason, even beside a good record', () => {
  for (const [exchange, routingKey, why] of [
    ['', 'celery', /default exchange/],
    ['jobs', 'celery', /neither configured nor the broker/],
    ['', 'celery.pidbox', /default exchange/],
  ] as const) {
    const d = replayTarget(
      row({ exchange, routingKey, source: 'headers' }, [real]),
      settings(),
      topology,
    );
    if (d.allowed) assert.fail(`allowed: ${JSON.stringify(d)}`);
    assert.match(d.reason, why);
  }
});

test('a forged x-death is not a broker record', () => {
  for (const forged of [
    death('jobs.work', '', 'celery'), // the default exchange
    death('jobs.work', 'jobs', 'celery'), // does not reach jobs.work
    death('celery', 'jobs', 'celery'), // celery does not dead-letter here
  ]) {
    const candidate: ReplayTarget = {
      exchange: forged.exchange,
      routingKey: forged.routingKeys[0]!,
      source: 'x-death',
    };
    const d = replayTarget(row(candidate, [forged]), settings(), topology);
    assert.equal(d.allowed, false, JSON.stringify(forged));
  }
  const none = replayTarget(row(null, [death('celery', 'jobs', 'celery')]), settings(), topology);
  assert.equal(none.allowed, false);
});

test('config allows: replayTo wins; allowedTargets patterns; the default exchange only when listed', () => {
  const poisoned = row({ exchange: '', routingKey: 'celery', source: 'headers' }, [real]);
  const configured = replayTarget(
    poisoned,
    settings({
      queues: [{ queue: 'jobs.dlq', replayTo: { exchange: 'jobs', routingKey: 'job' } }],
    }),
    topology,
  );
  assert.deepEqual(configured, {
    allowed: true,
    basis: 'configured',
    target: { exchange: 'jobs', routingKey: 'job', source: 'config' },
  });
  const listed = (allowedTargets: object[]) =>
    replayTarget(
      poisoned,
      settings({ replay: { ...settings().replay, allowedTargets } }),
      topology,
    );
  assert.deepEqual(listed([{ exchange: '', routingKey: 'celery' }]), {
    allowed: true,
    basis: 'listed',
    target: { exchange: '', routingKey: 'celery', source: 'headers' },
  });
  assert.equal(listed([{ exchange: 'jobs', routingKey: '*' }]).allowed, false);
  assert.equal(
    listed([{ exchange: '*', routingKey: 'cel*' }]).allowed,
    false,
    'a pattern never admits the default exchange',
  );
  assert.equal(
    replayTarget(
      row({ exchange: 'jobs', routingKey: 'job', source: 'headers' }, [real]),
      settings(),
      null,
    ).allowed,
    false,
    'without the topology nothing checks x-death',
  );
});

test('x-death vouches only for a configured source queue, and only for a target that reaches it alone', () => {
  // An app user declared `trap` (dead-letters into the shared DLX), bound it to
  // payments.commands with refund.all, and published straight to the DLX with this x-death.
  const forged = death('trap', 'payments.commands', 'refund.all');
  const named: ReplayTarget = {
    exchange: 'payments.commands',
    routingKey: 'refund.all',
    source: 'x-death',
  };
  const unnamed = replayTarget(row(named, [forged]), settings(), topology);
  if (unnamed.allowed) assert.fail('a queue sourceQueues does not name vouched for a target');
  assert.match(
    unnamed.reason,
    /x-death names queue "trap", which deadLetters\.replay\.sourceQueues does not/,
  );

  const everything = settings({ replay: { ...defaults.replay, sourceQueues: ['*'] } });
  const wide = replayTarget(row(named, [forged]), everything, topology);
  if (wide.allowed) assert.fail('a target that reaches another queue was allowed');
  assert.match(wide.reason, /reaches "payments\.refunds" besides "trap"/);
  assert.equal(replayTarget(row(null, [forged]), everything, topology).allowed, false);

  // The real record still replays, and the default settings trust no x-death at all.
  assert.equal(replayTarget(row(null, [real]), everything, topology).allowed, true);
  assert.equal(replayTarget(row(null, [real]), defaults, topology).allowed, false);
});

test('a claimed target reached through an exchange-to-exchange binding reaches that queue too: refused', async () => {
  // jobs (direct) -> audit.fanout (an exchange-to-exchange binding) -> audit.q: a publish to jobs
  // with key job reaches jobs.work and audit.q, which the queue-only routes never showed.
  const e2e = await topologyOf(
    [
      ...bindings,
      {
        vhost,
        source: 'jobs',
        destination: 'audit.fanout',
        destination_type: 'exchange',
        routing_key: 'job',
      },
      {
        vhost,
        source: 'audit.fanout',
        destination: 'audit.q',
        destination_type: 'queue',
        routing_key: '',
      },
    ],
    [...exchanges, { vhost, name: 'audit.fanout', type: 'fanout' }],
  );
  const d = replayTarget(row(null, [real]), settings(), e2e);
  if (d.allowed) assert.fail(`allowed: ${JSON.stringify(d)}`);
  assert.match(d.reason, /routing key "job" reaches "audit\.q" besides "jobs\.work"/);
});

test('a claimed target whose reach cannot be computed is refused, with the reason', async () => {
  // jobs -> a headers exchange: where a message goes depends on its headers, not the key.
  const viaHeaders = await topologyOf(
    [
      ...bindings,
      {
        vhost,
        source: 'jobs',
        destination: 'by-headers',
        destination_type: 'exchange',
        routing_key: 'job',
      },
    ],
    [...exchanges, { vhost, name: 'by-headers', type: 'headers' }],
  );
  const d = replayTarget(row(null, [real]), settings(), viaHeaders);
  if (d.allowed) assert.fail(`allowed: ${JSON.stringify(d)}`);
  assert.match(
    d.reason,
    /where exchange "jobs", routing key "job" goes cannot be computed: exchange "by-headers" is of type "headers"/,
  );
});
