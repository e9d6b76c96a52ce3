import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { MemoryBudget } from './memory.js';

const MB = 1024 * 1024;

function budget(readings: number[]) {
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

test('the process as it runs: a budget below its resident memory is over at once', () => {
  const b = new MemoryBudget(1 * MB, null);
  b.start();
  try {
    assert.equal(b.over, true);
  } finally {
    b.stop();
  }
});
