import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryDelayMs } from './retry.js';

const seed = { baseDelayMs: 5000, maxDelayMs: 60000, scale: 1 };

test('delays follow min(60 s, 5 s * 2^(n-1)) without jitter at the midpoint', () => {
  const mid = () => 0.5;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, seed, mid)),
    [5000, 10000, 20000, 40000, 60000, 60000],
  );
});

test('jitter stays within ±10 %', () => {
  assert.equal(
    retryDelayMs(1, seed, () => 0),
    4500,
  );
  assert.equal(
    retryDelayMs(1, seed, () => 1),
    5500,
  );
});

test('the scale shrinks every delay', () => {
  assert.equal(
    retryDelayMs(3, { ...seed, scale: 0.01 }, () => 0.5),
    200,
  );
});
