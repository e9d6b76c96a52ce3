// QueueCatalog.untilLoaded: the first scrapes wait a little for the catalog's first refresh, and
// no wait outlives its scrape (a timer left running kept what the scrape read alive) or leaves
// anything behind while the catalog never loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heapAfterGc } from '@acktrail/testing';
import { QueueCatalog } from './catalog.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test('before the first refresh: the wait ends at its bound and leaves no timer', async () => {
  const catalog = new QueueCatalog();
  const before = timers();
  let done = false;
  const waiting = catalog.untilLoaded(30, new AbortController().signal).then(() => {
    done = true;
  });
  assert.equal(done, false);
  await waiting;
  assert.equal(timers(), before);
});

test('a catalog that never loads (a broker away for days) keeps nothing of the waits that ended', async () => {
  const catalog = new QueueCatalog();
  const scrape = new AbortController();
  const waits = (n: number) =>
    Promise.all(Array.from({ length: n }, () => catalog.untilLoaded(0, scrape.signal)));
  await waits(10_000); // what the first waits grow once (the set, the timer lists)
  const before = await heapAfterGc();
  for (let round = 0; round < 5; round++) await waits(10_000);
  const held = (await heapAfterGc()) - before;
  // A reaction left on a promise that never settles: 300 to 600 bytes a wait, 15 to 30 MiB here.
  assert.ok(held < 8 * 2 ** 20, `${(held / 2 ** 20).toFixed(1)} MiB held after 50,000 waits`);
});

test('the first refresh ends a wait at once, and clears its timer', async () => {
  const catalog = new QueueCatalog();
  const before = timers();
  const waiting = catalog.untilLoaded(60_000, new AbortController().signal);
  assert.equal(timers(), before + 1);
  catalog.update({ roles: new Map() });
  await waiting;
  assert.equal(timers(), before);
});

test('once loaded, a wait sets no timer at all; an aborted scrape does not wait', async () => {
  const catalog = new QueueCatalog();
  catalog.update({ roles: new Map() });
  const before = timers();
  const waiting = catalog.untilLoaded(60_000, new AbortController().signal);
  assert.equal(timers(), before);
  await waiting;

  const aborted = new AbortController();
  aborted.abort();
  const fresh = new QueueCatalog();
  const pending = fresh.untilLoaded(60_000, aborted.signal);
  assert.equal(timers(), before);
  await pending;
});
