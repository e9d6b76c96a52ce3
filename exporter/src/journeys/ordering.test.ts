import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findOrdering, type VersionedDelivery } from './ordering.js';

const d = (eventId: string, version: number, t: number, result: string | null = null) =>
  ({ eventId, aggregateId: 'A', version, timeUs: t, result }) satisfies VersionedDelivery;

test('gaps, out-of-order and stale skips, in time order whatever the input order', () => {
  const findings = findOrdering([
    d('e2', 2, 30),
    d('e1', 1, 10),
    d('e4', 4, 20),
    d('e2b', 2, 40, 'stale_skipped'),
    d('e4', 4, 50), // a redelivery of the newest version
    d('e7', 7, 60),
  ]);
  assert.deepEqual(
    findings.map((f) => [f.kind, f.eventId, f.after, f.missing]),
    [
      ['gap', 'e4', 1, [2, 3]],
      ['out_of_order', 'e2', 4, undefined],
      ['stale_skipped', 'e2b', 4, undefined],
      ['gap', 'e7', 4, [5, 6]],
    ],
  );
});

test('the highest version processed before is where a new write starts', () => {
  assert.deepEqual(
    findOrdering([d('e5', 5, 1)], new Map([['A', 6]])).map((f) => f.kind),
    ['out_of_order'],
  );
  assert.deepEqual(findOrdering([d('e7', 7, 1)], new Map([['A', 6]])), []);
});
