// Replay targets, forged as a producer would: headers and x-death entries pointing at the default
// exchange, at another queue, or at an exchange that does not reach the queue that failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../config.js';
import { routesByQueue } from '../broker/routes.js';
import { deadLetterSources } from '../broker/dead-lettering.js';
import type { Death, ReplayTarget } from './message.js';
import { globMatch, replayTarget, type Topology } from './targets.js';

const vhost = '/';
const queues = [
  { vhost, name: 'jobs.work', deadLetterExchange: 'jobs.dlx', deadLetterRoutingKey: null },
  { vhost, name: 'jobs.dlq', deadLetterExchange: null, deadLetterRoutingKey: null },
  { vhost, name: 'celery', deadLetterExchange: null, deadLetterRoutingKey: null },
];
const bindings = [
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
];
const exchanges = [
  { vhost, name: 'jobs', type: 'direct' },
  { vhost, name: 'jobs.dlx', type: 'fanout' },
];
const routes = routesByQueue(bindings, exchanges);
const sources = deadLetterSources(queues, routes);
const key = (q: string) => `${vhost}\u0000${q}`;
const topology: Topology = {
  deadLetterQueues: () => [],
  deadLetterSources: (_v, q) => sources.get(key(q)) ?? [],
  routesOf: (_v, q) => routes.get(key(q)),
};

const death = (queue: string, exchange: string, rk: string): Death => ({
  queue,
  reason: 'rejected',
  count: 1,
  exchange,
  routingKeys: [rk],
  time: null,
});
const defaults = loadConfig({}).deadLetters;
const settings = (over: object = {}): typeof defaults => ({ ...defaults, ...over });
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
    target: { exchange: 'jobs', routingKey: 'job', source: 'config' },
  });
  const listed = (allowedTargets: object[]) =>
    replayTarget(
      poisoned,
      settings({ replay: { ...settings().replay, allowedTargets } }),
      topology,
    );
  assert.equal(listed([{ exchange: '', routingKey: 'celery' }]).allowed, true);
  assert.equal(listed([{ exchange: 'jobs', routingKey: '*' }]).allowed, false);
  assert.equal(listed([{ exchange: '*', routingKey: 'cel*' }]).allowed, true);
  assert.equal(
    replayTarget(
      row({ exchange: 'jobs', routingKey: 'job', source: 'headers' }, [real]),
      settings(),
      null,
    ).allowed,
    false,
    'without the catalog nothing checks x-death',
  );
});
