// Where one publish goes, through exchange-to-exchange bindings and alternate exchanges, and the
// hops whose routing cannot be known from the key: each rule as RabbitMQ routes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RoutingGraph } from './reach.js';
import type { BindingInfo } from './roles.js';
import type { ExchangeInfo } from './routes.js';

const vhost = '/';
const bind = (source: string, destination: string, key = '', toExchange = false): BindingInfo => ({
  vhost,
  source,
  destination,
  destination_type: toExchange ? 'exchange' : 'queue',
  routing_key: key,
});
const exchange = (name: string, type: string, more: Partial<ExchangeInfo> = {}): ExchangeInfo => ({
  vhost,
  name,
  type,
  ...more,
});

const exchanges = [
  exchange('orders.events', 'topic'),
  exchange('audit.fanout', 'fanout'),
  exchange('jobs', 'direct', { arguments: { 'alternate-exchange': 'jobs.unrouted' } }),
  exchange('jobs.unrouted', 'fanout'),
  exchange('ring.a', 'fanout'),
  exchange('ring.b', 'fanout'),
  exchange('by-headers', 'headers'),
  exchange('hashed', 'x-consistent-hash'),
  exchange('with-policy', 'direct', { policy: 'ae-policy' }),
];
const bindings = [
  bind('', 'orders.confirmations', 'orders.confirmations'),
  bind('', 'audit.q', 'audit.q'),
  bind('', 'lost', 'lost'),
  bind('orders.events', 'orders.confirmations', 'order.created'),
  bind('orders.events', 'audit.fanout', 'order.#', true),
  bind('audit.fanout', 'audit.q'),
  bind('jobs', 'orders.confirmations', 'job'),
  bind('jobs.unrouted', 'lost'),
  bind('ring.a', 'ring.b', '', true),
  bind('ring.b', 'ring.a', '', true),
  bind('ring.b', 'audit.q'),
  bind('orders.events', 'by-headers', 'order.odd', true),
  bind('with-policy', 'audit.q', 'k'),
];
const graph = new RoutingGraph(bindings, exchanges);

test('an exchange-to-exchange binding takes the publish on, routed by the same key', () => {
  assert.deepEqual(graph.reach(vhost, 'orders.events', 'order.created'), {
    queues: ['audit.q', 'orders.confirmations'],
  });
  assert.deepEqual(graph.reach(vhost, 'orders.events', 'invoice.created'), { queues: [] });
});

test("the default exchange routes a key to that queue's name only", () => {
  assert.deepEqual(graph.reach(vhost, '', 'audit.q'), { queues: ['audit.q'] });
  assert.deepEqual(graph.reach(vhost, '', 'nowhere'), { queues: [] });
  assert.deepEqual(graph.reach('other', '', 'audit.q'), { queues: [] }, 'queues are per vhost');
});

test('an alternate exchange takes what its exchange routes nowhere, and nothing else', () => {
  assert.deepEqual(graph.reach(vhost, 'jobs', 'job'), { queues: ['orders.confirmations'] });
  assert.deepEqual(graph.reach(vhost, 'jobs', 'other'), { queues: ['lost'] });
});

test('a cycle of exchange bindings ends', () => {
  assert.deepEqual(graph.reach(vhost, 'ring.a', 'any'), { queues: ['audit.q'] });
});

test('a hop that routes by more than the key, or that the broker did not list, is unknown', () => {
  const unknown = (exchangeName: string, key: string) => {
    const r = graph.reach(vhost, exchangeName, key);
    return 'unknown' in r ? r.unknown : `known: ${JSON.stringify(r)}`;
  };
  assert.match(unknown('orders.events', 'order.odd'), /"by-headers" is of type "headers"/);
  assert.match(unknown('hashed', 'k'), /type "x-consistent-hash"/);
  assert.match(unknown('missing', 'k'), /lists no exchange "missing"/);
  assert.match(unknown('with-policy', 'other'), /policy "ae-policy" may name an alternate/);
  assert.deepEqual(graph.reach(vhost, 'with-policy', 'k'), { queues: ['audit.q'] });
});
