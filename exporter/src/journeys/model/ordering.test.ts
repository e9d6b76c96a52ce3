import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findOrdering, type VersionedDelivery } from './ordering.js';

const d = (eventId: string, version: number, t: number, result: string | null = null) =>
  ({ eventId, aggregateId: 'A', version, timeUs: t, result }) satisfies VersionedDelivery;

const WORDS = { done: [], alreadyDone: [], stale: ['obsolete'] };

test('gaps, out-of-order and stale skips, in time order whatever the input order', () => {
  const findings = findOrdering(
    [
      d('e2', 2, 30),
      d('e1', 1, 10),
      d('e4', 4, 20),
      d('e2b', 2, 40, 'obsolete'),
      d('e4', 4, 50), // a redelivery of the newest version
      d('e7', 7, 60),
    ],
    WORDS,
  );
  assert.deepEqual(
    findings.map((f) => [f.kind, f.eventId, f.after, f.missing]),
    [
      ['gap', 'e4', 1, [2, 3]],
      ['out_of_order', 'e2', 4, undefined],
      ['stale', 'e2b', 4, undefined],
      ['gap', 'e7', 4, [5, 6]],
    ],
  );
});

test('the highest version processed before is where a new write starts', () => {
  assert.deepEqual(
    findOrdering([d('e5', 5, 1)], WORDS, new Map([['A', 6]])).map((f) => f.kind),
    ['out_of_order'],
  );
  assert.deepEqual(findOrdering([d('e7', 7, 1)], WORDS, new Map([['A', 6]])), []);
});

test('a result that is no configured stale word is an out-of-order delivery', () => {
  const late = [d('e3', 3, 10), d('e2', 2, 20, 'obsolete')];
  assert.deepEqual(
    findOrdering(late).map((f) => f.kind),
    ['out_of_order'],
  );
  assert.deepEqual(
    findOrdering(late, WORDS).map((f) => f.kind),
    ['stale'],
  );
});
