import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refreshIntervalMs } from './refresh-interval.js';

test('a fast refresh waits the configured interval', () => {
  assert.equal(refreshIntervalMs(60_000, 40), 60_000);
});

test('a slow refresh stretches the wait to 100 times its own duration', () => {
  // 10,000 queues on the test machine: 4.6 s per refresh, the next 460 s later.
  assert.equal(refreshIntervalMs(60_000, 4_600), 460_000);
});

test('the stretch stops at ten configured intervals', () => {
  assert.equal(refreshIntervalMs(60_000, 23_000), 600_000);
  // One starved 2 s refresh with a 1 s interval: 10 s, not 200 s.
  assert.equal(refreshIntervalMs(1_000, 2_000), 10_000);
});
