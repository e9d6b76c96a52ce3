import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExchangeIndex, routesByQueue } from './routes.js';

test('routes into each queue from its bindings, by exchange type', () => {
  const routes = routesByQueue(
    [
      {
        vhost: 'v',
        source: '',
        destination: 'jobs',
        destination_type: 'queue',
        routing_key: 'jobs',
      },
      {
        vhost: 'v',
        source: 'events',
        destination: 'jobs',
        destination_type: 'queue',
        routing_key: 'job.created',
      },
      {
        vhost: 'v',
        source: 'all',
        destination: 'jobs',
        destination_type: 'queue',
        routing_key: '',
      },
      {
        vhost: 'v',
        source: 'topics',
        destination: 'jobs',
        destination_type: 'queue',
        routing_key: 'job.#',
      },
      {
        vhost: 'v',
        source: 'by-header',
        destination: 'jobs',
        destination_type: 'queue',
        routing_key: '',
      },
      {
        vhost: 'v',
        source: 'events',
        destination: 'other-exchange',
        destination_type: 'exchange',
        routing_key: 'x',
      },
    ],
    [
      { vhost: 'v', name: 'events', type: 'direct' },
      { vhost: 'v', name: 'all', type: 'fanout' },
      { vhost: 'v', name: 'topics', type: 'topic' },
      { vhost: 'v', name: 'by-header', type: 'headers' },
    ],
  );
  assert.deepEqual([...routes.keys()], ['v\u0000jobs']);
  assert.deepEqual(routes.get('v\u0000jobs'), {
    exact: [
      { exchange: '', key: 'jobs' },
      { exchange: 'events', key: 'job.created' },
    ],
    any: ['all'],
    pattern: [{ exchange: 'topics', key: 'job.#' }],
  });
});

test('the queues a publish reaches, by exchange type; a key not recorded reaches every bound queue', () => {
  const bind = (source: string, destination: string, key: string) => ({
    vhost: 'v',
    source,
    destination,
    destination_type: 'queue',
    routing_key: key,
  });
  const index = new ExchangeIndex(
    [
      bind('direct', 'a', 'k'),
      bind('direct', 'b', 'other'),
      bind('topics', 'a', 'order.*'),
      bind('topics', 'b', '#.eu'),
      bind('all', 'c', 'ignored'),
      bind('by-header', 'd', ''),
    ],
    [
      { vhost: 'v', name: 'direct', type: 'direct' },
      { vhost: 'v', name: 'topics', type: 'topic' },
      { vhost: 'v', name: 'all', type: 'fanout' },
      { vhost: 'v', name: 'by-header', type: 'headers' },
    ],
  );
  assert.deepEqual(index.reached('direct', 'k'), ['a']);
  assert.deepEqual(index.reached('topics', 'order.eu').sort(), ['a', 'b']);
  assert.deepEqual(index.reached('topics', 'order.created.us'), []);
  assert.deepEqual(index.reached('all', 'anything'), ['c']);
  assert.deepEqual(index.reached('direct', null).sort(), ['a', 'b']);
  assert.deepEqual(index.reached('', 'c'), ['c']);
  // A headers exchange routes by what a span does not carry: not an exchange this index routes.
  assert.equal(index.isExchange('by-header'), false);
  assert.deepEqual(index.reached('by-header', ''), []);
});
