// The switches that turn the runtime tricks off (docs/operations.md), each tested both ways on a
// running exporter: ACKTRAIL_LOWER_THREADS on the process as a user starts it (its V8 helper
// threads, read from /proc), ACKTRAIL_PARSER_DISCARD on one in this process (a refused body's
// 'data' events, seen through the request's diagnostics channel).
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { test, type TestContext } from 'node:test';
import { waitFor } from '@acktrail/testing';
import { startExporterProcess, TestExporter } from '../../testing/exporter.js';
import { threadsOf } from '../../testing/threads.js';
import { BACKGROUND_NICE } from './threads.js';

/** V8's helper threads of a running exporter, and its event loop's nice value. */
async function helpersOf(env: Record<string, string>) {
  const { proc } = await startExporterProcess(env);
  try {
    const threads = threadsOf(proc.pid);
    const loop = threads.find((t) => t.name !== 'V8Worker')!;
    return { loop: loop.nice, helpers: threads.filter((t) => t.name === 'V8Worker') };
  } finally {
    await proc.kill();
  }
}

test("V8 helper threads are lowered by default, and left at the loop's priority with ACKTRAIL_LOWER_THREADS=off", async () => {
  const lowered = await helpersOf({});
  assert.ok(lowered.helpers.length > 0, 'Node starts V8 helper threads');
  assert.deepEqual(
    lowered.helpers.map((t) => t.nice),
    lowered.helpers.map(() => Math.min(19, lowered.loop + BACKGROUND_NICE)),
  );
  const off = await helpersOf({ ACKTRAIL_LOWER_THREADS: 'off' });
  assert.ok(off.helpers.length > 0);
  assert.deepEqual(
    off.helpers.map((t) => t.nice),
    off.helpers.map(() => off.loop),
  );
});

const KB = 1024;

/**
 * Sends a span body to an exporter whose store never comes (so it refuses: 503), in two steps: the
 * headers, then once the refusal is read, the body (256 KB) and a second request behind it. The
 * refusal has set up the body's discarding before any byte of it arrives. Returns the 'data'
 * events the refused request emitted.
 */
async function refusedBodyDataEvents(t: TestContext, env: Record<string, string>) {
  const exporter = await TestExporter.start({
    ACKTRAIL_DATABASE_URL: 'postgres://acktrail@127.0.0.1:1/nothing',
    ...env,
  });
  t.after(() => exporter.close());
  const events = { data: 0, requests: 0 };
  const onRequest = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    if (request.url !== '/v1/traces') return;
    events.requests++;
    if (events.requests === 1) request.on('data', () => events.data++);
  };
  subscribe('http.server.request.start', onRequest);
  t.after(() => unsubscribe('http.server.request.start', onRequest));

  const socket = connect(exporter.ports.main, '127.0.0.1');
  t.after(() => socket.destroy());
  await once(socket, 'connect');
  let answers = '';
  socket.on('data', (chunk: Buffer) => (answers += chunk.toString('latin1')));
  const body = Buffer.alloc(256 * KB, '{');
  const head = (length: number) =>
    `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${String(length)}\r\n\r\n`;
  socket.write(head(body.length));
  await waitFor('the refusal, before the body is sent', () => /^HTTP\/1\.1 503 /.test(answers));
  socket.write(body);
  socket.write(head(2) + '{}');
  await waitFor(
    'the second answer: the refused body was read to its end',
    () => (answers.match(/HTTP\/1\.1 503 /g) ?? []).length === 2,
  );
  return events.data;
}

test('a refused body is thrown away by the parser by default, and read as data events with ACKTRAIL_PARSER_DISCARD=off', async (t) => {
  assert.equal(await refusedBodyDataEvents(t, {}), 0, 'no piece of the body reached JavaScript');
  const off = await refusedBodyDataEvents(t, { ACKTRAIL_PARSER_DISCARD: 'off' });
  assert.ok(off > 0, `the body came as 'data' events (${String(off)})`);
});
