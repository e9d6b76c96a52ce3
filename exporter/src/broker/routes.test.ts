import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routesByQueue, topicRegex } from './routes.js';

const matches = (bindingKey: string, routingKey: string) =>
  new RegExp(topicRegex(bindingKey)).test(`.${routingKey}`);

test('topic binding keys: * is one word, # zero or more, the rest literal', () => {
  const cases: [string, string, boolean][] = [
    ['order.created', 'order.created', true],
    ['order.created', 'order.createdX', false],
    ['order.*', 'order.created', true],
    ['order.*', 'order', false],
    ['order.*', 'order.created.eu', false],
    ['order.#', 'order', true],
    ['order.#', 'order.created.eu', true],
    ['#.eu', 'eu', true],
    ['#.eu', 'order.created.eu', true],
    ['#.eu', 'order.created.us', false],
    ['#', '', true],
    ['#', 'a.b.c', true],
    ['a.#.z', 'a.z', true],
    ['a.#.z', 'a.b.c.z', true],
    ['a.#.z', 'a.b.c', false],
    ['a+b.(c)', 'a+b.(c)', true],
    ['a+b.(c)', 'aab.c', false],
  ];
  for (const [pattern, routingKey, want] of cases)
    assert.equal(matches(pattern, routingKey), want, `${pattern} ~ ${routingKey}`);
});

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
    pattern: [{ exchange: 'topics', regex: topicRegex('job.#') }],
  });
});
