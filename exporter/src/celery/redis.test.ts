import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileSchema } from '../config/sections.js';
import { envelopeBody, eventPattern, queueKeys, redisDb } from './redis.js';
import { redeliveries } from './task.js';

const settings = (redis: Record<string, unknown> = {}) =>
  fileSchema.parse({ celery: { url: 'redis://127.0.0.1:6379/5', redis } }).celery;

test("the event channel, as kombu's Redis transport names it for each option", () => {
  assert.equal(redisDb('redis://127.0.0.1:6379/5'), 5);
  assert.equal(redisDb('rediss://:pw@cache.example:6380'), 0);
  assert.equal(eventPattern(settings(), 5), '/5.celeryev/*');
  assert.equal(eventPattern(settings({ fanoutPatterns: false }), 5), '/5.celeryev');
  assert.equal(eventPattern(settings({ fanoutPrefix: false }), 5), 'celeryev/*');
  assert.equal(eventPattern(settings({ fanoutPrefix: '/app.' }), 5), '/app.celeryev/*');
});

test("kombu's envelope: a base64 body, a plain one, and what is no envelope", () => {
  const event = JSON.stringify({ type: 'worker-heartbeat' });
  const b64 = JSON.stringify({
    body: Buffer.from(event).toString('base64'),
    'content-type': 'application/json',
    properties: { body_encoding: 'base64', delivery_info: { routing_key: 'worker.heartbeat' } },
  });
  assert.equal(envelopeBody(Buffer.from(b64))?.toString(), event);
  const plain = JSON.stringify({ body: event, properties: {} });
  assert.equal(envelopeBody(Buffer.from(plain))?.toString(), event);
  for (const bad of ['not json', '[1,2]', '{"body": 3}', 'null'])
    assert.equal(envelopeBody(Buffer.from(bad)), null, bad);
});

test('a queue is its list and one list per priority step above 0', () => {
  assert.deepEqual(queueKeys('celery', [0, 3, 6, 9]), [
    'celery',
    'celery\x06\x163',
    'celery\x06\x166',
    'celery\x06\x169',
  ]);
});

test('a start after a start that neither ended nor retried is a redelivery', () => {
  assert.equal(redeliveries(['PENDING', 'RECEIVED', 'STARTED', 'SUCCESS']), 0);
  assert.equal(redeliveries(['RECEIVED', 'STARTED', 'RETRY', 'RECEIVED', 'STARTED']), 0);
  assert.equal(redeliveries(['RECEIVED', 'STARTED', 'RECEIVED', 'STARTED', 'SUCCESS']), 1);
  assert.equal(redeliveries(['STARTED', 'STARTED', 'STARTED']), 2);
});

test('broker URLs: the four schemes Celery uses here, and a clear error otherwise', () => {
  for (const url of ['amqp://h/v', 'amqps://h/v', 'redis://h:6379/2', 'rediss://h:6380/0'])
    assert.equal(fileSchema.parse({ celery: { url } }).celery.url, url);
  const r = fileSchema.safeParse({ celery: { url: 'sqs://queue' } });
  assert.equal(r.success, false);
  assert.match(JSON.stringify(r.error.issues), /a Celery broker URL: amqp:\/\/, amqps:\/\/, redis/);
});
