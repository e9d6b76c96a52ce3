// discardBody: a refused body is read and thrown away by one reader, however many times the
// refusal is told (readBody discards what it refuses, and the route discards what it answers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
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
