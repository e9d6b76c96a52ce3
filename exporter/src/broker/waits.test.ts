// Waits for the refresher: the first scrapes wait a little for the first topology, a write waits
// for the refresh that learns its queues, and no wait outlives its bound (a timer left running
// kept what a scrape read alive) or leaves anything behind while the broker never answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heapAfterGc } from '@acktrail/testing';
import { Waits } from './waits.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test('a wait nothing ends ends at its bound and leaves no timer', async () => {
  const waits = new Waits();
  const before = timers();
  let done = false;
  const waiting = waits.wait(30).then(() => {
    done = true;
  });
  assert.equal(done, false);
  assert.equal(waits.size, 1);
  await waiting;
  assert.equal(timers(), before);
  assert.equal(waits.size, 0);
});

test('waits that ended (a broker away for days) keep nothing', async () => {
  const waits = new Waits();
  const scrape = new AbortController();
  const many = (n: number) =>
    Promise.all(Array.from({ length: n }, () => waits.wait(0, scrape.signal)));
  await many(10_000); // what the first waits grow once (the set, the timer lists)
  const before = await heapAfterGc();
  for (let round = 0; round < 5; round++) await many(10_000);
  const held = (await heapAfterGc()) - before;
  // A reaction left on a promise that never settles: 300 to 600 bytes a wait, 15 to 30 MiB here.
  assert.ok(held < 8 * 2 ** 20, `${(held / 2 ** 20).toFixed(1)} MiB held after 50,000 waits`);
});

test('endAll ends every wait at once and clears its timer', async () => {
  const waits = new Waits();
  const before = timers();
  const waiting = waits.wait(60_000);
  assert.equal(timers(), before + 1);
  waits.endAll();
  await waiting;
  assert.equal(timers(), before);
});

test('endUpTo ends the waits that refresh answers, and only those', async () => {
  const waits = new Waits();
  const ended: number[] = [];
  const second = waits.wait(60_000, undefined, 2).then(() => ended.push(2));
  const third = waits.wait(60_000, undefined, 3).then(() => ended.push(3));
  waits.endUpTo(2);
  await second;
  assert.deepEqual(ended, [2]);
  assert.equal(waits.size, 1, 'the wait for the next refresh still waits');
  waits.endUpTo(3);
  await third;
  assert.deepEqual(ended, [2, 3]);
});

test('an aborted scrape does not wait, and sets no timer', async () => {
  const waits = new Waits();
  const aborted = new AbortController();
  aborted.abort();
  const before = timers();
  const pending = waits.wait(60_000, aborted.signal);
  assert.equal(timers(), before);
  await pending;
  assert.equal(waits.size, 0);
});
