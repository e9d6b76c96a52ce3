import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { IdleCollector } from './idle-collect.js';

function collector() {
  const calls: unknown[] = [];
  const gc = ((options?: unknown) => {
    calls.push(options);
  }) as NonNullable<typeof globalThis.gc>;
  return { calls, idle: new IdleCollector(gc, 1000) };
}

test('memory is given back once a large scrape is answered and none comes for a while', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { calls, idle } = collector();
    idle.begin();
    idle.end(true);
    mock.timers.tick(999);
    assert.equal(calls.length, 0);
    // Another scrape within the idle time puts it off again: one collection, after the last.
    idle.begin();
    idle.end(false);
    mock.timers.tick(999);
    assert.equal(calls.length, 0);
    mock.timers.tick(1);
    assert.deepEqual(calls, [{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
    mock.timers.tick(10_000);
    assert.equal(calls.length, 1);
  } finally {
    mock.timers.reset();
  }
});

test('no collection while a scrape is in flight, nor after small ones', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { calls, idle } = collector();
    idle.begin();
    idle.begin();
    idle.end(true);
    mock.timers.tick(5000);
    assert.equal(calls.length, 0, 'one scrape is still being answered');
    idle.end(false);
    mock.timers.tick(1000);
    assert.equal(calls.length, 1);
    idle.begin();
    idle.end(false);
    mock.timers.tick(5000);
    assert.equal(calls.length, 1, 'a small exposition leaves nothing to give back');
  } finally {
    mock.timers.reset();
  }
});
