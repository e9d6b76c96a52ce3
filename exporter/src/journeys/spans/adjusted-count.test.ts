// The adjusted count of a span from OpenTelemetry's consistent probability sampling threshold
// (tracestate ot=th), as the specification's examples give it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adjustedCount, adjustedCountOf, thresholdOf } from './adjusted-count.js';

test('the threshold of the ot entry, among other vendors and other ot fields', () => {
  assert.equal(thresholdOf('ot=th:c'), 'c');
  assert.equal(thresholdOf('congo=t61rcWkgMzE,ot=rv:0123456789abcd;th:fd'), 'fd');
  assert.equal(thresholdOf('congo=th:8'), null, 'another vendor');
  assert.equal(thresholdOf('ot=th:'), null);
  assert.equal(thresholdOf('ot=th:C'), null, 'lowercase only');
  assert.equal(thresholdOf(`ot=th:${'1'.repeat(15)}`), null, 'at most 14 digits');
});

test('adjusted counts: th:0 is 1, th:8 is 2, th:c is 4, th:fc is 64, th:ff is 256; none or invalid is 1', () => {
  assert.equal(adjustedCountOf(''), 1);
  assert.equal(adjustedCountOf('ot=th:0'), 1);
  assert.equal(adjustedCountOf('ot=th:8'), 2);
  assert.equal(adjustedCountOf('ot=th:c'), 4);
  assert.equal(adjustedCountOf('ot=th:fc'), 64);
  assert.equal(adjustedCountOf('ot=th:ff'), 256);
  assert.equal(adjustedCountOf('ot=th:zz'), 1);
});

test('a threshold that claims more than the maximum counts as 1 and is refused; nothing is infinite', () => {
  assert.deepEqual(adjustedCount('ot=th:fc', 100), { count: 64, refused: false });
  assert.deepEqual(adjustedCount('ot=th:fe', 100), { count: 1, refused: true });
  // The forged thresholds of a sender: 2^52 and, as a float, Infinity before.
  assert.deepEqual(adjustedCount('ot=th:fffffffffffff'), { count: 1, refused: true });
  assert.deepEqual(adjustedCount('ot=th:ffffffffffffff'), { count: 1, refused: true });
  const all = adjustedCount('ot=th:ffffffffffffff', Number.MAX_VALUE);
  assert.equal(all.count, 2 ** 56);
  assert.ok(Number.isFinite(all.count));
  assert.equal(adjustedCountOf('ot=th:fffffffffffff'), 1, 'past the default maximum (1000)');
  assert.equal(adjustedCountOf('ot=th:ffc'), 1, '1024 is past 1000');
  assert.equal(adjustedCountOf('ot=th:ff8'), 512);
});
