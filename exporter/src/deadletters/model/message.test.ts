// What a dead letter says about its failure, from AMQP facts only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deathsOf, isRoutingHeader, normaliseReason, reasonOf, replayTargetOf } from './message.js';
import { seal, unseal, keyId } from './seal.js';
import { randomBytes } from 'node:crypto';
import { scrub } from '../../journeys/model/scrub.js';

// x-death as amqplib decodes the broker's header: most recent first, timestamps typed.
const xDeath = [
  {
    count: 1,
    reason: 'rejected',
    queue: 'payments.capture',
    time: { '!': 'timestamp', value: 1_796_000_000 },
    exchange: 'payments',
    'routing-keys': ['payment.created'],
  },
  {
    count: 3,
    reason: 'expired',
    queue: 'payments.capture.retry',
    time: { '!': 'timestamp', value: 1_795_999_000 },
    exchange: '',
    'routing-keys': [Buffer.from('payments.capture.retry')],
  },
];

test('x-death is read as the broker wrote it, most recent first', () => {
  const deaths = deathsOf({ 'x-death': xDeath });
  assert.deepEqual(deaths[0], {
    queue: 'payments.capture',
    reason: 'rejected',
    count: 1,
    exchange: 'payments',
    routingKeys: ['payment.created'],
    time: 1_796_000_000,
  });
  assert.deepEqual(deaths[1]?.routingKeys, ['payments.capture.retry']);
  assert.deepEqual(deathsOf({ 'x-death': 'not a list' }), []);
  assert.deepEqual(deathsOf({}), []);
});

test("the reason: the first configured header present, else x-death's reason", () => {
  const headers = ['x-acktrail-dead-letter-reason', 'x-exception-message'];
  assert.deepEqual(reasonOf({ 'x-exception-message': Buffer.from('card declined') }, [], headers), {
    reason: 'card declined',
    source: 'x-exception-message',
  });
  assert.deepEqual(reasonOf({}, deathsOf({ 'x-death': xDeath }), headers), {
    reason: 'rejected',
    source: 'x-death',
  });
  assert.deepEqual(reasonOf({}, [], headers), { reason: 'unknown', source: 'none' });
});

test('reasons group: addresses, ids and numbers are masked', () => {
  assert.equal(normaliseReason('order 1045 not found'), normaliseReason('order 77 not found'));
  assert.equal(
    normaliseReason(scrub('provider 422: invalid address bob@example.com')),
    'provider <n>: invalid address <email>',
  );
  assert.equal(
    normaliseReason('event 7a0c54a2-8d1f-4d0e-9a51-3f2b7c9e1d20 refused by 9f8e7d6c5b4a39281706'),
    'event <uuid> refused by <id>',
  );
  assert.ok(normaliseReason('x'.repeat(10_000)).length <= 200);
});

test('where a replay goes: config, then the application headers, then x-death', () => {
  const deaths = deathsOf({ 'x-death': xDeath });
  const spring = { 'x-original-exchange': 'orders', 'x-original-routingKey': 'order.created' };
  assert.deepEqual(replayTargetOf({}, deaths, undefined), {
    exchange: 'payments',
    routingKey: 'payment.created',
    source: 'x-death',
  });
  assert.deepEqual(replayTargetOf(spring, deaths, undefined), {
    exchange: 'orders',
    routingKey: 'order.created',
    source: 'headers',
  });
  assert.deepEqual(replayTargetOf(spring, deaths, { exchange: '', routingKey: 'q' }), {
    exchange: '',
    routingKey: 'q',
    source: 'config',
  });
  assert.equal(replayTargetOf({}, [], undefined), null, 'nothing says: no replay');
});

test('sealed bodies open only with the same key and queue, and are not stored in the clear', () => {
  const key = randomBytes(32);
  const body = Buffer.from('{"email":"private@example.com"}');
  const sealed = seal(key, body, '/:jobs.dlq');
  assert.ok(!sealed.includes('private@example.com'));
  assert.ok(unseal(key, sealed, '/:jobs.dlq').equals(body));
  assert.throws(() => unseal(randomBytes(32), sealed, '/:jobs.dlq'));
  assert.throws(() => unseal(key, sealed, '/:other.dlq'));
  const tampered = Buffer.from(sealed);
  tampered[tampered.length - 1]! ^= 1;
  assert.throws(() => unseal(key, tampered, '/:jobs.dlq'));
  assert.notEqual(seal(key, body, 'q').toString('hex'), seal(key, body, 'q').toString('hex'));
  assert.equal(keyId(key).length, 16);
});

test('routing headers: CC and BCC whatever their case, and nothing else', () => {
  for (const h of ['CC', 'BCC', 'cc', 'bcc', 'Cc', 'bCc'])
    assert.equal(isRoutingHeader(h), true, h);
  for (const h of ['x-cc', 'cc ', 'CCC', 'x-death', 'traceparent', ''])
    assert.equal(isRoutingHeader(h), false, h);
});
