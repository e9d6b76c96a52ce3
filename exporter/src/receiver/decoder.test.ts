// BodyDecoder: a body of offThreadBytes or more is converted to steps in a worker from the chunks
// it was read in, which are moved there (never joined or copied on the event loop) unless they are
// views of a shared buffer; a smaller body is converted on the loop and its chunks are left as
// they were. Both ways give the same steps, rejections and coverage. The worker's thread runs
// below the event loop's priority.
import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { after, test } from 'node:test';
import { BodyDecoder } from './decoder.js';
import { threadsOfThisProcess } from '../../testing/threads.js';
import { BACKGROUND_NICE } from '../runtime/threads.js';

const body = (spans: number) =>
  Buffer.from(
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeSpans: [
            {
              spans: Array.from({ length: spans }, (_, i) => ({
                traceId: 'ab'.repeat(16),
                spanId: (i + 1).toString(16).padStart(16, '0'),
                name: `span ${i}`,
                kind: 5,
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000000001000000',
                // Every fifth without a message id or a messaging system: a span journeys cannot
                // read (no RabbitMQ span to follow by its trace), for the coverage.
                attributes:
                  i % 5 === 0
                    ? []
                    : [
                        { key: 'messaging.system', value: { stringValue: 'rabbitmq' } },
                        { key: 'messaging.message_id', value: { stringValue: `e${i}` } },
                      ],
              })),
            },
          ],
        },
      ],
    }),
  );

/** A chunk that owns its memory, as a socket's read gives one. */
function owned(bytes: Uint8Array): Buffer {
  const memory = new ArrayBuffer(bytes.length);
  new Uint8Array(memory).set(bytes);
  return Buffer.from(memory);
}

/** The body in chunks of `size` that own their memory, the last one a view of a shared buffer. */
function chunksOf(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(owned(bytes.subarray(i, i + size)));
  const last = chunks.pop()!;
  const shared = owned(Buffer.concat([last, Buffer.from('not part of the body')]));
  chunks.push(shared.subarray(0, last.length));
  return chunks;
}

const WINDOW = { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER };
const onLoop = new BodyDecoder(Number.POSITIVE_INFINITY, 8 * 2 ** 20);
const offLoop = new BodyDecoder(1024, 8 * 2 ** 20);
after(async () => {
  await offLoop.close();
});

test('a large body is converted in a worker from its chunks, moved there and not copied', async () => {
  const whole = body(400);
  const expected = await onLoop.convert('json', whole, 10_000, WINDOW);
  assert.equal(expected.spans, 400);
  assert.equal(expected.accepted, 320);
  assert.ok(expected.steps.length >= 320);
  assert.ok(
    expected.coverage.some((row) => row.missing.some(([a, n]) => a === 'event_id' && n === 80)),
  );

  const chunks = chunksOf(whole, 16 * 1024);
  assert.ok(chunks.length > 3);
  assert.deepEqual(await offLoop.convert('json', chunks, 10_000, WINDOW), expected);
  // Moved: what owned its memory is detached here; the shared view was copied and is intact.
  for (const chunk of chunks.slice(0, -1)) assert.equal(chunk.buffer.byteLength, 0);
  const last = chunks.at(-1)!;
  assert.equal(last.buffer.byteLength, last.length + 'not part of the body'.length);
  assert.deepEqual(last, whole.subarray(whole.length - last.length));
});

test('a body below offThreadBytes is converted on the loop and its chunks stay as they were', async () => {
  const whole = body(2);
  const decoder = new BodyDecoder(whole.length + 1, 8 * 2 ** 20);
  const chunks = chunksOf(whole, 64);
  const converted = await decoder.convert('json', chunks, 10_000, WINDOW);
  assert.deepEqual(converted, await onLoop.convert('json', whole, 10_000, WINDOW));
  assert.deepEqual(Buffer.concat(chunks), whole);
});

test('the decoding worker runs BACKGROUND_NICE steps below the event loop', async () => {
  const own = getPriority(0);
  await offLoop.convert('json', [owned(body(10))], 10_000, WINDOW);
  assert.equal(getPriority(0), own, "the event loop's own priority is unchanged");
  const nices = threadsOfThisProcess().map((t) => t.nice);
  const below = Math.min(19, own + BACKGROUND_NICE);
  assert.ok(nices.includes(below), `no thread at nice ${below}: ${nices.join(', ')}`);
});
