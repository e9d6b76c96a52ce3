// The per-token limit on a real HTTP server: requests held open by their handler take the
// token's slots; one more is refused (429, Retry-After) while the other token still gets in; a
// slot comes back when an answer is sent, and when a client goes away before its answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { waitFor } from '@acktrail/testing';
import { requireToken } from './auth.js';
import { concurrentPerToken } from './per-token.js';

const READ = 'per-token-read-token-0123456';
const OPERATE = 'per-token-operate-token-0123';

test('a token gets max requests at once; the rest 429 until one ends or its client leaves', async () => {
  const held: { release: () => void; closed: Promise<unknown> }[] = [];
  const app = express();
  app.get(
    '/slow',
    requireToken({ read: READ, operate: OPERATE }, 'read'),
    concurrentPerToken(2, 'slow reads (test.max)'),
    (_req, res) => {
      held.push({ release: () => res.json({ ok: true }), closed: once(res, 'close') });
    },
  );
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
  const get = (token: string, signal?: AbortSignal) =>
    fetch(url, { headers: { authorization: `Bearer ${token}` }, signal });
  try {
    const first = get(READ);
    const aborted = new AbortController();
    const second = get(READ, aborted.signal).catch((err: unknown) => err);
    await waitFor('two requests held', () => held.length === 2);

    const third = await get(READ);
    assert.equal(third.status, 429);
    assert.equal(third.headers.get('retry-after'), '1');
    assert.match(((await third.json()) as { error: string }).error, /2 slow reads \(test\.max\)/);
    const other = get(OPERATE);
    await waitFor('the other token held too', () => held.length === 3);

    held[0]!.release();
    assert.equal((await first).status, 200);
    const fourth = get(READ);
    await waitFor('a slot freed by an answer', () => held.length === 4);

    aborted.abort();
    await second;
    await held[1]!.closed;
    const fifth = get(READ);
    await waitFor('a slot freed by a client that left', () => held.length === 5);
    for (const h of held.slice(2)) h.release();
    assert.deepEqual(
      await Promise.all([other, fourth, fifth].map(async (r) => (await r).status)),
      [200, 200, 200],
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
