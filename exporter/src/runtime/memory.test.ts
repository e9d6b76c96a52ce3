import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { MemoryBudget } from './memory.js';

const MB = 1024 * 1024;

/** `readings`: resident memory at each check; `held`: what the isolates hold at each (400 MB). */
function budget(readings: number[], held: number[] = []) {
  const registry = new Registry();
  let collected = 0;
  const told: boolean[] = [];
  const b = new MemoryBudget(
    500 * MB,
    registry,
    () => readings.shift() ?? 0,
    () => {
      collected++;
    },
    () => held.shift() ?? 400 * MB,
  );
  b.onChange((over) => told.push(over));
  return { b, registry, told, collected: () => collected };
}

async function gauge(registry: Registry, name: string): Promise<number | undefined> {
  const m = await registry.getSingleMetric(name)?.get();
  return m?.values[0]?.value;
}

test('over the budget at the budget, under again only below 90 % of it; listeners told once per crossing', async () => {
  const { b, registry, told, collected } = budget([
    499 * MB,
    500 * MB,
    520 * MB,
    460 * MB,
    450 * MB - 1,
    440 * MB,
  ]);
  assert.equal(await gauge(registry, 'acktrail_memory_budget_bytes'), 500 * MB);
  b.check();
  assert.equal(b.over, false);
  b.check();
  assert.equal(b.over, true, 'at the budget is over it');
  assert.equal(await gauge(registry, 'acktrail_memory_over_budget'), 1);
  assert.equal(collected(), 1, 'one collection asked for when the budget is crossed');
  b.check();
  b.check();
  assert.equal(b.over, true, 'between 90 % and the budget it stays over (no flapping)');
  b.check();
  assert.equal(b.over, false, 'below 90 % it is under again');
  assert.equal(await gauge(registry, 'acktrail_memory_over_budget'), 0);
  b.check();
  assert.deepEqual(told, [true, false]);
  assert.equal(collected(), 1);
});

test('a listener that stopped listening is not told', () => {
  const { b, told } = budget([600 * MB]);
  const heard: boolean[] = [];
  const stop = b.onChange((over) => heard.push(over));
  stop();
  b.check();
  assert.deepEqual(heard, []);
  assert.deepEqual(told, [true]);
});

test('resident memory the allocator keeps after the heaps were emptied does not hold the budget crossed', () => {
  // As after a flood: RSS stays at 750 MB (glibc keeps the freed pages) while the heaps empty.
  const { b, told } = budget(
    [600 * MB, 750 * MB, 750 * MB, 750 * MB, 750 * MB],
    [400 * MB, 300 * MB, 230 * MB, 224 * MB, 30 * MB],
  );
  b.check();
  assert.equal(b.over, true, 'over: RSS past the budget, and what is held is half of it or more');
  b.check();
  b.check();
  assert.equal(b.over, true, 'held above 45 % of the budget: still over');
  b.check();
  assert.equal(b.over, false, 'held below 45 %: under, whatever RSS says');
  b.check();
  assert.equal(b.over, false, 'RSS over the budget with little held is not a crossing');
  assert.deepEqual(told, [true, false]);
});

test("the threads' isolates count as held", async () => {
  const b = new MemoryBudget(
    500 * MB,
    null,
    () => 600 * MB,
    undefined,
    () => 10 * MB,
  );
  b.check();
  assert.equal(b.over, false, 'the event loop alone holds 10 MB');
  let asked = 0;
  const stats = { total_heap_size: 200 * MB, external_memory: 100 * MB } as never;
  b.countThreads(() => [
    {
      getHeapStatistics: () => {
        asked++;
        return Promise.resolve(stats);
      },
    },
  ]);
  b.check(); // reads the thread in the background
  await new Promise<void>((resolve) => setImmediate(resolve));
  b.check();
  assert.ok(asked >= 1);
  assert.equal(b.over, true, '10 MB here and 300 MB in a thread: over');
});

test('the process as it runs: a budget below its resident memory is over at once', () => {
  const b = new MemoryBudget(1 * MB, null);
  b.start();
  try {
    assert.equal(b.over, true);
  } finally {
    b.stop();
  }
});

test('while over, a collection is asked for again every fifth check (1 s), and not once under', () => {
  // Refusing every input, the exporter allocates nothing: V8 may not collect what the refused
  // bodies left, and the heaps would hold the budget crossed on garbage.
  const { b, collected } = budget(Array.from({ length: 12 }, (_, i) => (i < 11 ? 600 : 100) * MB));
  b.check();
  assert.equal(collected(), 1, 'on crossing');
  for (let i = 0; i < 10; i++) b.check();
  assert.equal(b.over, true);
  assert.equal(collected(), 3, 'two more over ten checks');
  b.check();
  assert.equal(b.over, false);
  assert.equal(collected(), 3);
});
