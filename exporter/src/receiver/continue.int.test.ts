// `Expect: 100-continue` on the real listeners: a request the receiver refuses is answered before
// its client sends a byte of the body, and the connection closes; one it takes gets its
// 100 Continue, sends the body and is stored; every other route still gets 100 Continue at once.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { waitFor } from '@acktrail/testing';
import { TestExporter } from '../../testing/exporter.js';
import { jsonBody } from '../../testing/otlp.js';

const INFLIGHT = 256 * 1024;
const MAX_BODY = 1024 * 1024;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let store: pg.Pool;

before(async () => {
  exporter = await TestExporter.withStore(
    { ACKTRAIL_INGEST_TOKEN: 'ingest-token-for-continue' },
    { journeys: { maxInflightBytes: INFLIGHT, maxBodyBytes: MAX_BODY } },
  );
  store = new pg.Pool({ connectionString: exporter.storeUrl, max: 1 });
});
after(async () => {
  await store.end();
  await exporter.close();
});

interface Sent {
  res: IncomingMessage;
  text: string;
  /** Whether the server said 100 Continue (and the body was then sent). */
  continued: boolean;
  socket: Socket;
}

/**
 * A client that waits for 100 Continue before it sends `body`, as curl does for large bodies, on a
 * keep-alive connection: the server decides whether it closes.
 */
async function send(
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
  declared = body.length,
): Promise<Sent> {
  const { port } = new URL(exporter.url);
  const req = request({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    headers: {
      'content-type': 'application/json',
      'content-length': String(declared),
      authorization: 'Bearer ingest-token-for-continue',
      expect: '100-continue',
      ...headers,
    },
  });
  let continued = false;
  req.on('continue', () => {
    continued = true;
    req.end(body);
  });
  req.flushHeaders();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { res, text: Buffer.concat(chunks).toString(), continued, socket: req.socket! };
}

const stored = async (prefix: string) =>
  (
    await store.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM journey_steps WHERE event_id LIKE $1`,
      [`${prefix}%`],
    )
  ).rows[0]!.n;

test('a body larger than the free in-flight budget is refused before it is sent: 503, Retry-After, the connection closed', async () => {
  const body = Buffer.alloc(INFLIGHT + 1, 0x20);
  const sent = await send('/v1/traces', body);
  assert.equal(sent.continued, false, 'no 100 Continue: the client never sent its body');
  assert.equal(sent.res.statusCode, 503);
  assert.equal(sent.res.headers['retry-after'], '2');
  assert.equal(sent.res.headers.connection, 'close');
  assert.match(sent.text, /in-flight budget/);
  await waitFor('the server to close the connection', () => sent.socket.destroyed);
});

test('a body declared larger than the limit gets 413, and a wrong token 401, before it is sent', async () => {
  const large = await send('/v1/traces', Buffer.alloc(16), {}, MAX_BODY + 1);
  assert.equal(large.continued, false);
  assert.equal(large.res.statusCode, 413);
  assert.equal(large.res.headers.connection, 'close');

  const forged = await send('/v1/traces', Buffer.from(jsonBody(1, 1, 'continue-forged')), {
    authorization: 'Bearer not-the-ingest-token',
  });
  assert.equal(forged.continued, false);
  assert.equal(forged.res.statusCode, 401);
  assert.equal(await stored('continue-forged'), 0);
});

test('a body that fits gets 100 Continue, is sent and stored', async () => {
  const sent = await send('/v1/traces', Buffer.from(jsonBody(1, 3, 'continue-taken')));
  assert.equal(sent.continued, true);
  assert.equal(sent.res.statusCode, 200, sent.text);
  assert.notEqual(sent.res.headers.connection, 'close', 'the connection is kept');
  assert.equal(await stored('continue-taken'), 3);
  sent.socket.destroy();
});

test('every other route gets its 100 Continue at once, as from Node itself', async () => {
  const sent = await send('/api/events/some-event', Buffer.from('{}'));
  assert.equal(sent.continued, true);
  assert.equal(sent.res.statusCode, 401, 'the API answers (it wants its token) after the body');
  sent.socket.destroy();
});
