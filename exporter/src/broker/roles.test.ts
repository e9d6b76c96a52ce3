import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inferRoles, roleFromName, type BindingInfo, type QueueInfo } from './roles.js';

const v = '/';
const q = (name: string, args: Record<string, unknown> = {}): QueueInfo => ({
  vhost: v,
  name,
  arguments: args,
});
const bind = (source: string, destination: string): BindingInfo => ({
  vhost: v,
  source,
  destination,
  destination_type: 'queue',
});
const roleOf = (roles: Map<string, string>, name: string) => roles.get(`${v}\u0000${name}`);

test('the reference topology: work queue, per-attempt retry queues, DLQ', async () => {
  const queues = [
    q('orders.confirmations', { 'x-dead-letter-exchange': 'orders.dlx' }),
    q('orders.confirmations.retry.1', {
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': 'orders.confirmations',
    }),
    q('orders.confirmations.retry.2', {
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': 'orders.confirmations',
    }),
    q('orders.confirmations.dlq'),
  ];
  const roles = await inferRoles(
    queues,
    [bind('orders.dlx', 'orders.confirmations.dlq'), bind('orders.events', 'orders.confirmations')],
    [],
  );
  assert.equal(roleOf(roles, 'orders.confirmations'), 'work');
  assert.equal(roleOf(roles, 'orders.confirmations.retry.1'), 'retry');
  assert.equal(roleOf(roles, 'orders.confirmations.retry.2'), 'retry');
  assert.equal(roleOf(roles, 'orders.confirmations.dlq'), 'dead_letter');
});

test('relations beat names: an oddly named DLQ and a TTL delay queue', async () => {
  const queues = [
    q('emails', { 'x-dead-letter-exchange': 'graveyard' }),
    q('tombstones'),
    q('emails-later', { 'x-dead-letter-exchange': 'mail', 'x-message-ttl': 30000 }),
  ];
  const roles = await inferRoles(
    queues,
    [bind('graveyard', 'tombstones'), bind('mail', 'emails')],
    [],
  );
  assert.equal(roleOf(roles, 'emails'), 'work');
  assert.equal(roleOf(roles, 'tombstones'), 'dead_letter');
  assert.equal(roleOf(roles, 'emails-later'), 'retry');
});

test('overrides win, first match first, per vhost when given', async () => {
  const roles = await inferRoles(
    [q('jobs.dlq'), q('jobs')],
    [],
    [],
    [
      { match: '^jobs\\.dlq$', vhost: 'other', role: 'work' },
      { match: '^jobs$', role: 'retry' },
    ],
  );
  assert.equal(roleOf(roles, 'jobs.dlq'), 'dead_letter');
  assert.equal(roleOf(roles, 'jobs'), 'retry');
});

test('names when nothing else says', () => {
  assert.equal(roleFromName('payments.dlq'), 'dead_letter');
  assert.equal(roleFromName('payments_dead_letter'), 'dead_letter');
  assert.equal(roleFromName('payments.retry.3'), 'retry');
  assert.equal(roleFromName('payments-delayed'), 'retry');
  assert.equal(roleFromName('payments'), 'work');
  assert.equal(roleFromName('waiting-room'), 'work');
});

test('a dead-letter key its exchange does not route to a queue makes no dead-letter queue of it', async () => {
  const topicBind = (queue: string, bindingKey: string) => ({
    ...bind('events.dlx', queue),
    routing_key: bindingKey,
  });
  const roles = await inferRoles(
    [
      q('jobs', {
        'x-dead-letter-exchange': 'events.dlx',
        'x-dead-letter-routing-key': 'jobs.failed',
      }),
      q('jobs.parked'),
      q('audit.copies'),
    ],
    [topicBind('jobs.parked', '#.failed'), topicBind('audit.copies', 'audit.#')],
    [{ vhost: '/', name: 'events.dlx', type: 'topic' }],
  );
  assert.equal(roleOf(roles, 'jobs.parked'), 'dead_letter');
  assert.equal(roleOf(roles, 'audit.copies'), 'work', 'bound to the exchange, not by that key');
  assert.equal(roleOf(roles, 'jobs'), 'work');
});
