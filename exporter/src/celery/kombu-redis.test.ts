import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileSchema } from '../config/sections.js';
import { loadConfig } from '../config.js';
import { writeConfig } from '../../testing/exporter.js';
import { envelopeBody, eventPatterns, queueKeys, redisDb, redisTarget } from './kombu-redis.js';
import { redeliveries } from '../journeys/model/celery-task.js';

const settings = (redis: Record<string, unknown> = {}, url = 'redis://127.0.0.1:6379/5') =>
  fileSchema.parse({ celery: { url, redis } }).celery;

test("the event channel, as kombu's Redis transport names it for each option", () => {
  assert.equal(redisDb('redis://127.0.0.1:6379/5'), 5);
  assert.equal(redisDb('rediss://:pw@cache.example:6380'), 0);
  assert.deepEqual(eventPatterns(settings()), ['/5.celeryev/*']);
  assert.deepEqual(eventPatterns(settings({ fanoutPatterns: false })), ['/5.celeryev']);
  assert.deepEqual(eventPatterns(settings({ fanoutPrefix: false })), ['celeryev/*']);
  assert.deepEqual(eventPatterns(settings({ fanoutPrefix: '/app.' })), ['/app.celeryev/*']);
  assert.deepEqual(eventPatterns(settings({ globalKeyprefix: 'p:' })), ['p:/5.celeryev/*']);
  // Over Sentinel, kombu before 5.4.0 publishes on a literal `/{db}.` (kombu#1986).
  assert.deepEqual(eventPatterns(settings({ masterName: 'm' }, 'sentinel://s:26379/2')), [
    '/2.celeryev/*',
    '/{db}.celeryev/*',
  ]);
});

test("kombu's envelope: a base64 body, a plain one, and what is no envelope", () => {
  const event = JSON.stringify({ type: 'worker-heartbeat' });
  const b64 = JSON.stringify({
    body: Buffer.from(event).toString('base64'),
    'content-type': 'application/json',
    properties: { body_encoding: 'base64', delivery_info: { routing_key: 'worker.heartbeat' } },
  });
  assert.equal(envelopeBody(Buffer.from(b64))?.body.toString(), event);
  assert.equal(envelopeBody(Buffer.from(b64))?.tag, null);
  const plain = JSON.stringify({ body: event, properties: {} });
  assert.equal(envelopeBody(Buffer.from(plain))?.body.toString(), event);
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

test('broker URLs: the schemes Celery uses here, and a clear error otherwise', () => {
  for (const url of [
    'amqp://h/v',
    'amqps://h/v',
    'redis://h:6379/2',
    'rediss://h:6380/0',
    'sentinel://s1:26379;sentinel://s2:26379/1',
  ])
    assert.equal(fileSchema.parse({ celery: { url } }).celery.url, url);
  const r = fileSchema.safeParse({ celery: { url: 'sqs://queue' } });
  assert.equal(r.success, false);
  assert.match(JSON.stringify(r.error.issues), /a Celery broker URL: amqp:\/\/, amqps:\/\/, redis/);
});

test('a Sentinel broker as kombu reads it: every sentinel, the master by name, the database', () => {
  assert.equal(redisTarget('redis://h:6379/2', undefined), 'redis://h:6379/2');
  assert.deepEqual(
    redisTarget('sentinel://:s3cret@s1:26379;sentinel://s2:26380;sentinel://s3/4', 'mymaster'),
    {
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
        { host: 's3', port: 26379 },
      ],
      name: 'mymaster',
      db: 0,
      password: 's3cret',
    },
  );
  assert.equal(redisDb('sentinel://s1:26379/4;sentinel://s2:26379/4'), 4);
});

test('a sentinel:// broker without celery.redis.masterName is refused at start, naming the key', () => {
  assert.throws(
    () =>
      loadConfig({
        ACKTRAIL_CONFIG: writeConfig({ celery: { enabled: true, url: 'sentinel://s1:26379/0' } }),
      }),
    /celery\.redis\.masterName: a sentinel:\/\/ broker needs the master's name/,
  );
});
