import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { IdleCollector } from './idle-collect.js';

function collector() {
  const calls: string[] = [];
  const gc = ((options?: { flavor?: string }) => {
    calls.push(options?.flavor ?? 'plain');
  }) as NonNullable<typeof globalThis.gc>;
  return { calls, idle: new IdleCollector(gc, 1000) };
}

test('a large scrape is followed by a plain collection, and by the last resort once none comes for a while', () => {
  mock.timers.enable({ apis: ['setTimeout', 'setImmediate'] });
  try {
    const { calls, idle } = collector();
    idle.begin();
    idle.end(true);
    mock.timers.tick(999);
    assert.deepEqual(calls, ['plain']);
    // Another scrape within the idle time puts the last resort off: one, after the last scrape.
    idle.begin();
    idle.end(false);
    mock.timers.tick(999);
    assert.deepEqual(calls, ['plain']);
    mock.timers.tick(1);
    assert.deepEqual(calls, ['plain', 'last-resort']);
    mock.timers.tick(10_000);
    assert.deepEqual(calls, ['plain', 'last-resort']);
  } finally {
    mock.timers.reset();
  }
});

test('no last resort while a scrape is in flight, nor after small scrapes only', () => {
  mock.timers.enable({ apis: ['setTimeout', 'setImmediate'] });
  try {
    const { calls, idle } = collector();
    idle.begin();
    idle.begin();
    idle.end(true);
    mock.timers.tick(5000);
    assert.deepEqual(calls, ['plain'], 'one scrape is still being answered');
    idle.end(false);
    mock.timers.tick(1000);
    assert.deepEqual(calls, ['plain', 'last-resort']);
    idle.begin();
    idle.end(false);
    mock.timers.tick(5000);
    assert.deepEqual(calls, ['plain', 'last-resort'], 'a small exposition leaves nothing');
  } finally {
    mock.timers.reset();
  }
});
