// The batch writer as a state machine: what is written when, the order of the hooks, what a
// failure leads to, the bound on what is held, and what closing and flushing do.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchWriter, type BatchWriterOptions, type OnFailure } from './batch-writer.js';

/** A writer whose writes the test ends, and a log of every write and hook. */
function harness(
  options: Partial<BatchWriterOptions<string, string>> = {},
  fail: OnFailure = 'retry',
) {
  const writes: { batch: string[]; end: (err?: Error) => void }[] = [];
  const log: string[] = [];
  const writer = new BatchWriter<string, string>({
    maxItems: 3,
    delayMs: 0,
    backoffMs: () => 0,
    write: (batch) => {
      const { promise, resolve, reject } = Promise.withResolvers<string>();
      writes.push({
        batch: [...batch],
        end: (err) => {
          if (err) reject(err);
          else resolve(batch.join('+'));
        },
      });
      return promise;
    },
    committed: (batch, result) => log.push(`committed ${batch.join(',')} as ${result}`),
    failed: (err, failures, batch) => {
      log.push(`failed ${batch.join(',')} (${failures}): ${(err as Error).message}`);
      return fail;
    },
    released: (batch) => log.push(`released ${batch.join(',')}`),
    dropped: (items) => log.push(`dropped ${items.join(',')}`),
    recovered: () => log.push('recovered'),
    ...options,
  });
  /** Lets the writer's promises run. */
  const turn = () => new Promise((r) => setImmediate(r));
  /** Until the n-th write has started (a backoff of 0 still waits for a timer), bounded. */
  const writesStarted = async (n: number) => {
    for (let i = 0; writes.length < n; i++) {
      if (i === 1000) throw new Error(`${writes.length} writes, not ${n}`);
      await turn();
    }
  };
  return { writer, writes, log, turn, writesStarted };
}

test('written at once when maxItems wait, at most maxItems a batch', async () => {
  const { writer, writes, log, turn } = harness({ delayMs: 3_600_000 });
  writer.add('a', 'b');
  assert.equal(writes.length, 0, 'two of three: waits for the delay');
  writer.add('c', 'd');
  assert.deepEqual(
    writes.map((w) => w.batch),
    [['a', 'b', 'c']],
  );
  writes[0]!.end();
  await turn();
  assert.deepEqual(log, ['committed a,b,c as a+b+c']);
  assert.deepEqual(
    writes.map((w) => w.batch),
    [['a', 'b', 'c'], ['d']],
    'the rest is due too',
  );
  writes[1]!.end();
  await writer.flush();
});

test('written delayMs after the first item, not before', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { writer, writes } = harness({ delayMs: 50 });
    writer.add('a');
    mock.timers.tick(30);
    writer.add('b');
    mock.timers.tick(19);
    assert.equal(writes.length, 0);
    mock.timers.tick(1);
    assert.deepEqual(
      writes.map((w) => w.batch),
      [['a', 'b']],
    );
  } finally {
    mock.timers.reset();
  }
});

test('weights: a batch takes at most maxItems by weight, one item at least', () => {
  const { writer, writes } = harness({ maxItems: 5, weight: (s) => s.length, concurrency: 3 });
  writer.add('xxxxxxx', 'yy', 'zzz', 'w');
  assert.deepEqual(
    writes.map((w) => w.batch),
    [['xxxxxxx'], ['yy', 'zzz'], ['w']],
  );
});

test('at most `concurrency` writes at once; the next starts when one ends', async () => {
  const { writer, writes, turn } = harness({ maxItems: 1, concurrency: 2 });
  writer.add('a', 'b', 'c');
  assert.equal(writes.length, 2);
  writes[1]!.end();
  await turn();
  assert.deepEqual(
    writes.map((w) => w.batch),
    [['a'], ['b'], ['c']],
  );
});

test('ordered: hooks in the order batches were taken, whichever write ends first', async () => {
  const { writer, writes, log, turn } = harness({ maxItems: 1, concurrency: 2, ordered: true });
  writer.add('a', 'b');
  writes[1]!.end();
  await turn();
  assert.deepEqual(log, [], "b's hook waits for a");
  writes[0]!.end();
  await writer.flush();
  assert.deepEqual(log, ['committed a as a', 'committed b as b']);
});

test('unordered: each hook as its write ends', async () => {
  const { writer, writes, log } = harness({ maxItems: 1, concurrency: 2 });
  writer.add('a', 'b');
  writes[1]!.end();
  writes[0]!.end();
  await writer.flush();
  assert.deepEqual(log, ['committed b as b', 'committed a as a']);
});

test('release: a failed batch is given back, and the batches after it wait for that (ordered)', async () => {
  const { writer, writes, log } = harness(
    { maxItems: 1, concurrency: 2, ordered: true },
    'release',
  );
  writer.add('a', 'b');
  writes[1]!.end();
  writes[0]!.end(new Error('store down'));
  await writer.flush();
  assert.deepEqual(log, ['failed a (1): store down', 'released a', 'committed b as b']);
  assert.equal(writes.length, 2, 'a released batch is not written again');
});

test('retry: the same batch is written again until it is stored', async () => {
  const { writer, writes, log, writesStarted } = harness();
  writer.add('a', 'b');
  writes[0]!.end(new Error('one'));
  await writesStarted(2);
  writes[1]!.end(new Error('two'));
  await writesStarted(3);
  writes[2]!.end();
  await writer.flush();
  assert.deepEqual(
    writes.map((w) => w.batch),
    [
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ],
  );
  assert.deepEqual(log, [
    'failed a,b (1): one',
    'failed a,b (2): two',
    'recovered',
    'committed a,b as a+b',
  ]);
});

test('maxHeld: past it the oldest waiting items are dropped, never one being written', async () => {
  const { writer, writes, log, turn } = harness({ maxItems: 2, maxHeld: 4 });
  writer.add('a', 'b');
  writer.add('c', 'd', 'e', 'f');
  assert.deepEqual(log, ['dropped c,d']);
  assert.equal(writer.held, 4);
  writes[0]!.end();
  await turn();
  writes[1]!.end();
  await writer.flush();
  assert.deepEqual(
    writes.map((w) => w.batch),
    [
      ['a', 'b'],
      ['e', 'f'],
    ],
  );
});

test('closed: no retry (a failing batch is dropped), nothing written until a flush, which writes once', async () => {
  const { writer, writes, log, turn } = harness({ delayMs: 10 });
  writer.add('a', 'b', 'c');
  writer.close();
  writes[0]!.end(new Error('down'));
  await turn();
  assert.deepEqual(log, ['failed a,b,c (1): down', 'dropped a,b,c']);
  writer.add('d');
  await turn();
  assert.equal(writes.length, 1, 'nothing of its own accord once closed');
  const flushed = writer.flush();
  assert.deepEqual(
    writes.map((w) => w.batch),
    [['a', 'b', 'c'], ['d']],
  );
  writes[1]!.end();
  await flushed;
  assert.equal(log.at(-1), 'committed d as d');
});

test('closing ends a backoff at once', async () => {
  const { writer, writes, log, turn } = harness({ backoffMs: () => 3_600_000 });
  writer.add('a');
  writes[0]!.end(new Error('down'));
  await turn();
  assert.deepEqual(log, ['failed a (1): down']);
  writer.close();
  await writer.flush();
  assert.deepEqual(log, ['failed a (1): down', 'dropped a']);
});

test('flush resolves once everything added is settled; clear settles what waits', async () => {
  const { writer, writes, turn } = harness({ maxItems: 1 });
  writer.add('a', 'b');
  let flushed = false;
  const done = writer.flush().then(() => {
    flushed = true;
  });
  writer.clear();
  await turn();
  assert.equal(flushed, false, 'a is still being written');
  writes[0]!.end();
  await done;
  assert.deepEqual(
    writes.map((w) => w.batch),
    [['a']],
    'b was forgotten, not written',
  );
});

test('a hook that throws does not stop the batches after it', async () => {
  let first = true;
  const { writer, writes, log } = harness({
    maxItems: 1,
    concurrency: 2,
    ordered: true,
    committed: (batch) => {
      if (first) {
        first = false;
        throw new Error('channel closed');
      }
      log.push(`committed ${batch.join(',')}`);
    },
  });
  writer.add('a', 'b');
  writes[0]!.end();
  writes[1]!.end();
  await writer.flush();
  assert.deepEqual(log, ['committed b']);
});
