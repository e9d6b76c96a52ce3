// The stand-in mail provider in-process: idempotency keys, failure settings, rejected addresses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { createProviderApp, matchesAny } from './server.js';

const ADMIN_TOKEN = 'provider-admin-token-0123';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
let server: Server;
let base: string;

before(async () => {
  const app = createProviderApp(
    {
      latencyMs: 0,
      failureRate: 0,
      timeoutRate: 0,
      hangMs: 0,
      rejectAddresses: ['*@invalid.example'],
    },
    pino({ level: 'silent' }),
    ADMIN_TOKEN,
    () => 0.5, // fixed roll: a failure rate of 1 always fails, 0 never
  );
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
after(() => {
  server.close();
});

const send = (key: string | null, to = 'a@example.com') =>
  fetch(`${base}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({ to, template: 'order-confirmation', order_id: 1 }),
  });

const sentFor = async (key: string) =>
  (
    (await (await fetch(`${base}/admin/stats?key=${key}`, { headers: admin })).json()) as {
      sent_for_key: number;
    }
  ).sent_for_key;

const settings = (body: unknown) =>
  fetch(`${base}/admin/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...admin },
    body: JSON.stringify(body),
  });

test('a repeated key replays the first result without sending again', async () => {
  const first = await send('k1');
  assert.equal(first.status, 202);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const body = (await first.json()) as { message_id: string };
  const again = await send('k1');
  assert.equal(again.status, 202);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(((await again.json()) as { message_id: string }).message_id, body.message_id);
  assert.equal(await sentFor('k1'), 1);
});

test('a 503 is not remembered: the retry with the same key sends', async () => {
  assert.equal((await settings({ failureRate: 1 })).status, 200);
  assert.equal((await send('k2')).status, 503);
  assert.equal(await sentFor('k2'), 0);
  assert.equal((await settings({ failureRate: 0 })).status, 200);
  const retry = await send('k2');
  assert.equal(retry.status, 202);
  assert.equal(retry.headers.get('idempotent-replayed'), null);
  assert.equal(await sentFor('k2'), 1);
});

test('rejected addresses get a 422 that is not remembered: the same key sends once the address is fixed', async () => {
  const res = await send('k3', 'x@invalid.example');
  assert.equal(res.status, 422);
  assert.deepEqual(await res.json(), { error: 'invalid address' });
  const again = await send('k3', 'x@invalid.example');
  assert.equal(again.status, 422);
  assert.equal(again.headers.get('idempotent-replayed'), null);
  assert.equal(await sentFor('k3'), 0);
  const fixed = await send('k3', 'x@example.com');
  assert.equal(fixed.status, 202);
  assert.equal(await sentFor('k3'), 1);
});

test('bad requests and bad settings get a 400 that says what is wrong', async () => {
  const noKey = await send(null);
  assert.equal(noKey.status, 400);
  assert.match(((await noKey.json()) as { error: string }).error, /Idempotency-Key/);
  const bad = await settings({ failureRate: 2, colour: 'red' });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /failureRate|colour/);
});

test('address patterns: * matches any run, the rest literally', () => {
  assert.ok(matchesAny('a@invalid.example', ['*@invalid.example']));
  assert.ok(!matchesAny('a@invalidXexample', ['*@invalid.example']));
  assert.ok(matchesAny('bounce@example.com', ['bounce@*']));
  assert.ok(!matchesAny('a@example.com', []));
});

test('the admin routes need the admin token', async () => {
  for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }] as Record<
    string,
    string
  >[]) {
    const get = await fetch(`${base}/admin/stats`, { headers });
    assert.equal(get.status, 401);
    const put = await fetch(`${base}/admin/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ failureRate: 1 }),
    });
    assert.equal(put.status, 401);
    assert.match(((await put.json()) as { error: string }).error, /PROVIDER_ADMIN_TOKEN/);
  }
  // Nothing changed: a message is still sent.
  assert.equal((await send('k-admin')).status, 202);
});
