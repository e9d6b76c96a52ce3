// IdleWatch: silence past the bound ends a body; bytes that arrived while the event loop was
// stalled still count as bytes (the stall is made here by a busy loop, the bytes by a socket).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { IdleWatch } from './idle.js';

async function socketPair(): Promise<{ client: Socket; server: Socket; close: () => void }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const { port } = listener.address() as { port: number };
  const accepted = once(listener, 'connection');
  const client = connect(port, '127.0.0.1');
  const [server] = (await accepted) as [Socket];
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
      listener.close();
    },
  };
}

test('bytes sent while the loop was stalled past the bound keep the body alive', async (t) => {
  const { client, server, close } = await socketPair();
  t.after(close);
  const state = { idle: false };
  let ended!: () => void;
  const idled = new Promise<void>((resolve) => (ended = resolve));
  const watch = new IdleWatch(50, () => {
    state.idle = true;
    ended();
  });
  t.after(() => {
    watch.stop();
  });
  const arrived = once(server, 'data');
  server.on('data', () => {
    watch.touch();
  });
  client.write('x');
  // The loop is busy for twice the bound while the byte waits in the socket, unread.
  const until = performance.now() + 100;
  while (performance.now() < until);
  await arrived;
  await new Promise((r) => setImmediate(r));
  assert.equal(state.idle, false, 'the byte that came during the stall counts');
  // Then nothing comes: the watch ends it.
  await idled;
});

test('stopped, it never fires', async () => {
  let fired = false;
  const watch = new IdleWatch(5, () => (fired = true));
  watch.stop();
  // A watch of its own, later than the stopped one, tells that the stopped one's time has passed.
  await new Promise<void>((resolve) => new IdleWatch(20, resolve));
  assert.equal(fired, false);
});
