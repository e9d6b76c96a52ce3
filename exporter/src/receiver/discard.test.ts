// discardBody: a refused body is read to its end and thrown away, so that its client reads the
// answer. A body of a declared length is thrown away by Node's HTTP parser (nothing of it reaches
// JavaScript), and the parser gets its callbacks back for the next request on the connection, a
// pipelined one too, and for the next connection it serves. A chunked body is read as 'data'
// events, within its bound. Either way one reader, however many times the refusal is told, and
// to its end even when its sender pauses past the keep-alive timeout Node arms once answered.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { waitFor } from '@acktrail/testing';
import { discardBody } from './discard.js';

const MB = 1024 * 1024;

/** What the server saw of a request it discarded. */
interface Discarded {
  dataEvents: number;
  complete: boolean;
}

/**
 * A server that discards the body of POST /refused (twice, as the receiver may) and answers 503
 * once it has ended, and echoes the body of POST /echo.
 */
async function server(t: TestContext, maxBytes = 8 * MB, idleMs = 10_000) {
  const discarded: Discarded[] = [];
  const parsers: unknown[] = [];
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    parsers.push((req.socket as Socket & { parser?: unknown }).parser);
    if (req.url === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.end(Buffer.concat(chunks)));
      return;
    }
    discardBody(req, maxBytes, idleMs);
    discardBody(req, maxBytes, idleMs);
    const seen: Discarded = { dataEvents: 0, complete: false };
    discarded.push(seen);
    req.on('data', () => seen.dataEvents++);
    req.once('end', () => {
      seen.complete = req.complete;
      res.writeHead(503, { 'retry-after': '5' }).end('busy');
    });
  });
  const closed = { connections: 0 };
  srv.on('connection', (socket: Socket) => {
    socket.on('close', () => closed.connections++);
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  // Every connection closed (and its parser given back) before the next test starts.
  t.after(() => {
    srv.closeAllConnections();
    return new Promise<void>((resolve) => {
      srv.close(() => {
        resolve();
      });
    });
  });
  return { port: (srv.address() as { port: number }).port, discarded, parsers, closed };
}

/** A raw connection, and everything it has been sent back. */
async function client(t: TestContext, port: number) {
  const socket = connect(port, '127.0.0.1');
  t.after(() => socket.destroy());
  await once(socket, 'connect');
  const answer: Buffer[] = [];
  const state = { closed: false };
  socket.on('data', (chunk: Buffer) => answer.push(chunk));
  socket.on('close', () => (state.closed = true));
  socket.on('error', () => undefined);
  return { socket, state, text: () => Buffer.concat(answer).toString('latin1') };
}

const post = (path: string, body: Buffer | string) =>
  Buffer.concat([
    Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`),
    Buffer.from(body),
  ]);

/** An answer 200 with a body has arrived whole. */
const c200 = (text: string) => /^HTTP\/1\.1 200 [^]*\r\n\r\n.+$/.test(text);

test('a body of a declared length is thrown away by the parser, and the pipelined request after it keeps its body', async (t) => {
  const { port, discarded } = await server(t);
  const c = await client(t, port);
  // One write: the parser reads the second request's body in the same pass that ends the first.
  c.socket.write(Buffer.concat([post('/refused', Buffer.alloc(MB, 'x')), post('/echo', 'hello')]));
  await waitFor('both answers', () => /HTTP\/1\.1 200 [^]*hello$/.test(c.text()), {
    timeoutMs: 10_000,
  });
  assert.match(c.text(), /^HTTP\/1\.1 503 [^]*busy/);
  assert.deepEqual(discarded, [{ dataEvents: 0, complete: true }]);
  assert.equal(c.state.closed, false);
});

test('a connection closed mid-body hands its parser on with its callbacks', async (t) => {
  const { port, discarded, parsers, closed } = await server(t);
  const first = await client(t, port);
  first.socket.write(post('/refused', Buffer.alloc(MB, 'x')).subarray(0, 256 * 1024));
  await waitFor('the refused request', () => discarded.length === 1, { timeoutMs: 10_000 });
  first.socket.destroy();
  await waitFor('the server to close it', () => closed.connections === 1, { timeoutMs: 10_000 });
  // The next connection is given the parser the closed one gave back (Node keeps freed parsers).
  const second = await client(t, port);
  second.socket.write(post('/echo', 'hello'));
  await waitFor('the echo', () => c200(second.text()), { timeoutMs: 10_000 });
  assert.equal(parsers[1], parsers[0], 'the same parser served both connections');
  assert.match(second.text(), /hello$/);
  assert.equal(discarded[0]!.dataEvents, 0);
});

test('a thrown-away body that sends nothing for the idle bound has its connection closed', async (t) => {
  const { port, discarded } = await server(t, 8 * MB, 300);
  const c = await client(t, port);
  c.socket.write(post('/refused', Buffer.alloc(MB, 'x')).subarray(0, 64 * 1024));
  await waitFor('the connection closed', () => c.state.closed, { timeoutMs: 10_000 });
  assert.deepEqual(discarded, [{ dataEvents: 0, complete: false }]);
});

test('a thrown-away body that keeps sending, slowly, is read to its end past the idle bound', async (t) => {
  const { port, discarded } = await server(t, 8 * MB, 2000);
  const c = await client(t, port);
  const whole = post('/refused', Buffer.alloc(MB, 'x'));
  // 25 pieces, 100 ms apart: 2.5 s in all, each gap a twentieth of the bound.
  const piece = Math.ceil(whole.length / 25);
  for (let at = 0; at < whole.length; at += piece) {
    c.socket.write(whole.subarray(at, at + piece));
    await new Promise((r) => setTimeout(r, 100));
  }
  await waitFor('the answer', () => c.text().includes('busy'), { timeoutMs: 10_000 });
  assert.deepEqual(discarded, [{ dataEvents: 0, complete: true }]);
  assert.equal(c.state.closed, false);
});

test('a chunked body is read as data events, and past the bound its connection is closed', async (t) => {
  const { port, discarded } = await server(t, 256 * 1024);
  const c = await client(t, port);
  c.socket.write('POST /refused HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
  const chunk = Buffer.concat([
    Buffer.from(`${(64 * 1024).toString(16)}\r\n`),
    Buffer.alloc(64 * 1024, 'x'),
    Buffer.from('\r\n'),
  ]);
  for (let i = 0; i < 8 && !c.state.closed; i++) c.socket.write(chunk);
  await waitFor('the connection closed', () => c.state.closed, { timeoutMs: 10_000 });
  assert.equal(discarded.length, 1);
  assert.ok(discarded[0]!.dataEvents > 0, 'read as data events');
  assert.equal(discarded[0]!.complete, false);
});

test('a client that pauses past the keep-alive timeout after its answer still sends its body, and the connection is kept', async (t) => {
  const timedOut = { server: false };
  const ended: boolean[] = [];
  const srv = createServer((req: IncomingMessage, res) => {
    discardBody(req, 8 * MB, 60_000);
    req.once('end', () => ended.push(req.complete));
    res.writeHead(503, { 'retry-after': '5' }).end('busy');
  });
  srv.keepAliveTimeout = 1; // Node adds its buffer (about a second)
  srv.on('connection', (socket: Socket) => {
    socket.once('timeout', () => {
      timedOut.server = true;
    });
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  t.after(() => srv.close());
  const { port } = srv.address() as { port: number };

  const c = await client(t, port);
  c.socket.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n1234');
  await waitFor('the answer', () => c.text().includes('busy'), { timeoutMs: 10_000 });
  // The answer is out; the client says nothing until the server's keep-alive timeout has fired.
  await waitFor('the keep-alive timeout', () => timedOut.server, { timeoutMs: 10_000 });
  const written = new Promise<Error | null | undefined>((resolve) => {
    c.socket.write('5678', resolve);
  });
  assert.ifError(await written);
  await waitFor('the body read to its end', () => ended.length === 1, { timeoutMs: 10_000 });
  assert.deepEqual(ended, [true]);
  assert.equal(c.state.closed, false);
  assert.match(c.text(), /^HTTP\/1\.1 503 /);
});
