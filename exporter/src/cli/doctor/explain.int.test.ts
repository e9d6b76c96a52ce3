// The doctor's explanation of a management API 401 tries the same credentials over AMQP: never
// over a weaker transport than the URL's. Listeners of the test's own on 127.0.0.3's AMQP ports
// (this machine's broker listens on 127.0.0.1 alone) see which port the credentials were sent to.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, test } from 'node:test';
import { refused } from './explain.js';

const HOST = '127.0.0.3';
const seen = { 5671: 0, 5672: 0 };
const servers: Server[] = [];

before(async () => {
  for (const port of [5671, 5672] as const) {
    const server = createServer((socket) => {
      seen[port]++;
      socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, HOST, resolve);
    });
    servers.push(server);
  }
});
after(() => {
  for (const s of servers) s.close();
});

test('an https management URL: the credentials go to amqps on 5671, never plain amqp on 5672', async () => {
  const finding = await refused(`https://monitor:s3cret@${HOST}:15671`, 'management API');
  assert.equal(seen[5672], 0, 'nothing sent in the clear');
  assert.equal(seen[5671], 1);
  assert.match(
    finding.said,
    /amqps at 127\.0\.0\.3:5671, which would tell them apart, did not answer/,
  );
});

test('an http management URL: the same transport, amqp on 5672', async () => {
  const before = seen[5672];
  const finding = await refused(`http://monitor:s3cret@${HOST}:15672`, 'management API');
  assert.equal(seen[5672], before + 1);
  assert.match(finding.said, /amqp at 127\.0\.0\.3:5672/);
});
