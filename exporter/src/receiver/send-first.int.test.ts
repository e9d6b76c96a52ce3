// A client that sends its whole body before it reads anything and closes the connection after one
// request (Python's urllib: `Connection: close`), refused by the receiver: without a token, over
// the body limit, over the in-flight budget. Each reads its answer (401, 413, 503 with
// Retry-After), never a broken pipe or a reset; the server reads its body to the end first.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { TestExporter } from '../../testing/exporter.js';

const MAX_BODY = 16 * 1024 * 1024;
const INFLIGHT = 1024 * 1024;
const TOKEN = 'ingest-token-for-send-first';
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;

before(async () => {
  exporter = await TestExporter.withStore(
    { ACKTRAIL_INGEST_TOKEN: TOKEN },
    { journeys: { maxInflightBytes: INFLIGHT, maxBodyBytes: MAX_BODY } },
  );
});
after(async () => {
  await exporter.close();
});

/**
 * Writes the whole request (headers and `bytes` of body, larger than the sockets' buffers hold),
 * waits until every byte was handed to the kernel, then reads the answer: its status line, or the
 * error the connection failed with.
 */
async function sendFirst(bytes: number, headers: Record<string, string>): Promise<string> {
  const { port } = new URL(exporter.url);
  const socket = connect(Number(port), '127.0.0.1');
  let answer = '';
  socket.on('data', (b: Buffer) => (answer += b.toString('latin1')));
  // A server that neither reads nor closes leaves the writes waiting: bounded, and said.
  const deadline = setTimeout(() => socket.destroy(new Error('no answer within 30 s')), 30_000);
  const ended = new Promise<string>((resolve) => {
    socket.once('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code ?? err.message);
    });
    socket.once('close', () => {
      resolve(answer.split('\r\n')[0] ?? '');
    });
  }).finally(() => {
    clearTimeout(deadline);
  });
  const head =
    `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
    `Connection: close\r\nContent-Length: ${bytes}\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  socket.write(head);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  for (let sent = 0; sent < bytes && !socket.destroyed; sent += chunk.length)
    if (!socket.write(chunk.subarray(0, Math.min(chunk.length, bytes - sent))))
      await new Promise((r) => {
        socket.once('drain', r);
        socket.once('close', r);
      });
  return ended;
}

test('without the token: 401, read after the whole body was sent', async () => {
  assert.equal(await sendFirst(12 * 1024 * 1024, {}), 'HTTP/1.1 401 Unauthorized');
});

test('over the body limit: 413', async () => {
  const status = await sendFirst(MAX_BODY + 8 * 1024 * 1024, {
    authorization: `Bearer ${TOKEN}`,
  });
  assert.equal(status, 'HTTP/1.1 413 Payload Too Large');
});

test('over the in-flight budget: 503', async () => {
  const status = await sendFirst(12 * 1024 * 1024, {
    authorization: `Bearer ${TOKEN}`,
  });
  assert.equal(status, 'HTTP/1.1 503 Service Unavailable');
});
