// discardBody: a refused body is read and thrown away by one reader, however many times the
// refusal is told (readBody discards what it refuses, and the route discards what it answers), and
// to its end even when its sender pauses past the keep-alive timeout Node arms once answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { waitFor } from '@acktrail/testing';
import { discardBody } from './body.js';

test('a body discarded twice has one reader and is read to its end', async (t) => {
  const seen: { readers: number; complete: boolean }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    discardBody(req, 8 * 1024 * 1024, 10_000);
    discardBody(req, 8 * 1024 * 1024, 10_000);
    const readers = req.listenerCount('data');
    req.once('end', () => {
      seen.push({ readers, complete: req.complete });
      res.writeHead(503, { 'retry-after': '5' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const { port } = server.address() as { port: number };

  const body = Buffer.alloc(1024 * 1024, 'x');
  const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/v1/traces' });
  req.end(body);
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  res.resume();
  await once(res, 'end');

  assert.equal(res.statusCode, 503);
  assert.deepEqual(seen, [{ readers: 1, complete: true }]);
});

test('a client that pauses past the keep-alive timeout after its answer still sends its body, and the connection is kept', async (t) => {
  const timedOut = { server: false };
  const ended: boolean[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    discardBody(req, 8 * 1024 * 1024, 60_000);
    req.once('end', () => ended.push(req.complete));
    res.writeHead(503, { 'retry-after': '5' }).end('busy');
  });
  server.keepAliveTimeout = 1; // Node adds its buffer (about a second)
  server.on('connection', (socket: Socket) => {
    socket.once('timeout', () => {
      timedOut.server = true;
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const { port } = server.address() as { port: number };

  const client = connect(port, '127.0.0.1');
  t.after(() => client.destroy());
  await once(client, 'connect');
  const answer: Buffer[] = [];
  client.on('data', (chunk: Buffer) => answer.push(chunk));
  client.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n1234');
  await waitFor('the answer', () => Buffer.concat(answer).includes('busy'), { timeoutMs: 10_000 });
  // The answer is out; the client says nothing until the server's keep-alive timeout has fired.
  await waitFor('the keep-alive timeout', () => timedOut.server, { timeoutMs: 10_000 });
  const written = new Promise<Error | null | undefined>((resolve) => {
    client.write('5678', resolve);
  });
  assert.ifError(await written);
  await waitFor('the body read to its end', () => ended.length === 1, { timeoutMs: 10_000 });
  assert.deepEqual(ended, [true]);
  assert.equal(client.destroyed, false);
  assert.match(Buffer.concat(answer).toString(), /^HTTP\/1\.1 503 /);
});
