import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactCredentials } from '../log.js';
import { masked } from './mask.js';

test('check-config masks a password in a URL, as user:pass@ and as a query parameter', () => {
  const out = masked({
    store: 'postgres://acktrail:s3cret@db/acktrail',
    replica: 'postgres://db/acktrail?user=acktrail&password=s3cret&sslmode=require',
    pgbouncer: 'postgresql://db/acktrail?sslpassword=s3cret',
    plain: 'postgres://db/acktrail?application_name=x',
  }) as Record<string, string>;
  assert.deepEqual(
    Object.values(out).filter((v) => v.includes('s3cret')),
    [],
  );
  assert.match(out.replica!, /user=acktrail&password=\*{4}&sslmode=require/);
  assert.equal(out.plain, 'postgres://db/acktrail?application_name=x');
});

test("check-config masks every password of a Celery broker list (Kombu's sentinel and failover URLs)", () => {
  const out = masked({
    url: 'sentinel://:s3cret@h1:26379;sentinel://u:s3cret@h2:26379/0',
    failover: 'amqp://u:s3cret@mq1//;amqp://u:s3cret@mq2//',
  }) as Record<string, string>;
  assert.doesNotMatch(JSON.stringify(out), /s3cret/);
  assert.equal(out.url, 'sentinel://:****@h1:26379;sentinel://u:****@h2:26379/0');
});

test('log messages lose every credential of the URLs they quote', () => {
  const message = redactCredentials(
    'connect failed: postgres://u:s3cret@db/x and postgres://db/x?password=s3cret&user=u (amqp://a:s3cret@mq)',
  );
  assert.doesNotMatch(message, /s3cret/);
  assert.match(message, /\?password=\*\*\*&user=u/);
});
