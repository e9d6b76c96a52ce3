// The waterfall's axis: a long idle gap is compressed and marked, short ones are left alone, and
// the real offsets survive the round trip (ticks and tooltips show them).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compressedAxis } from '../lib/charts/waterfall.js';

test('a replay minutes later: the gap is drawn narrow, every step keeps its width', () => {
  // The first delivery's steps in 30 ms, the replay and its delivery 160 s later, in 20 ms.
  const spans = [
    { start: 0, end: 5 },
    { start: 10, end: 30 },
    { start: 160_000, end: 160_004 },
    { start: 160_010, end: 160_020 },
  ];
  const axis = compressedAxis(spans);
  assert.equal(axis.gaps.length, 1);
  assert.equal(axis.gaps[0]!.ms, 160_000 - 30);
  const span = axis.toX(160_020) - axis.toX(0);
  assert.ok(span < 100, `the whole journey is drawn in ${span} ms, not 160 s`);
  for (const s of spans)
    assert.ok(Math.abs(axis.toX(s.end) - axis.toX(s.start) - (s.end - s.start)) < 1e-9);
  for (const ms of [0, 7, 30, 80_000, 160_000, 160_015])
    assert.ok(Math.abs(axis.toMs(axis.toX(ms)) - ms) < 1e-6, `round trip of ${ms}`);
  // The break sits between the two groups.
  assert.ok(
    axis.gaps[0]!.x1 >= axis.toX(30) - 1e-9 && axis.gaps[0]!.x2 <= axis.toX(160_000) + 1e-9,
  );
});

test('retries a second apart with work of seconds: drawn as they are', () => {
  const spans = [
    { start: 0, end: 2_000 },
    { start: 3_000, end: 5_000 },
    { start: 7_000, end: 9_000 },
  ];
  const axis = compressedAxis(spans);
  assert.deepEqual(axis.gaps, []);
  assert.equal(axis.toX(7_000), 7_000);
});

test('overlapping spans are one busy stretch; instants count as busy points', () => {
  const axis = compressedAxis([
    { start: 0, end: 50 },
    { start: 20, end: 40 },
    { start: 600_000, end: 600_000 },
  ]);
  assert.equal(axis.gaps.length, 1);
  assert.equal(axis.gaps[0]!.ms, 600_000 - 50);
});
