// The adjusted count of a span from OpenTelemetry's consistent probability sampling threshold
// (tracestate ot=th), as the specification's examples give it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adjustedCountOf, thresholdOf } from './adjusted-count.js';

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
