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

test('a large scrape is followed by the last resort once none comes for a while; scrapes closer together also by a plain collection each', () => {
  mock.timers.enable({ apis: ['setTimeout', 'setImmediate'] });
  try {
    const { calls, idle } = collector();
    idle.begin();
    idle.end(true);
    mock.timers.tick(999);
    assert.deepEqual(calls, [], 'the last resort will come: no collection before it');
    // Another scrape within the idle time puts the last resort off: one, after the last scrape.
    idle.begin();
    idle.end(false);
    mock.timers.tick(999);
    assert.deepEqual(calls, []);
    mock.timers.tick(1);
    assert.deepEqual(calls, ['last-resort']);
    mock.timers.tick(10_000);
    assert.deepEqual(calls, ['last-resort']);
    // Large scrapes back to back leave the last resort no moment: each after the first collects.
    for (let i = 0; i < 3; i++) {
      idle.begin();
      idle.end(true);
      mock.timers.tick(500);
    }
    assert.deepEqual(calls, ['last-resort', 'plain', 'plain']);
    mock.timers.tick(500);
    assert.deepEqual(calls, ['last-resort', 'plain', 'plain', 'last-resort']);
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
    assert.deepEqual(calls, [], 'one scrape is still being answered');
    idle.end(false);
    mock.timers.tick(1000);
    assert.deepEqual(calls, ['last-resort']);
    idle.begin();
    idle.end(false);
    mock.timers.tick(5000);
    assert.deepEqual(calls, ['last-resort'], 'a small exposition leaves nothing');
  } finally {
    mock.timers.reset();
  }
});
