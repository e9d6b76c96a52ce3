// The contract's own consistency: every name is written once and every old name belongs to a
// current one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ATTR, EVENT_ID_ATTRIBUTES, SEMCONV, SEMCONV_OLD, STAGES, namesOf } from './index.js';

test('no attribute name is used for two facts', () => {
  const names = [
    ...Object.values(ATTR),
    ...Object.values(SEMCONV),
    ...Object.values(SEMCONV_OLD).flat(),
  ];
  assert.equal(new Set(names).size, names.length);
});

test('old names map to current semantic-convention names; acktrail names stay acktrail.*', () => {
  const current = new Set<string>(Object.values(SEMCONV));
  for (const key of Object.keys(SEMCONV_OLD)) assert.ok(current.has(key), key);
  for (const name of Object.values(ATTR)) assert.match(name, /^acktrail\./);
  assert.deepEqual(namesOf(SEMCONV.messageId), ['messaging.message.id', 'messaging.message_id']);
  assert.deepEqual(
    [...EVENT_ID_ATTRIBUTES],
    ['acktrail.event_id', 'messaging.message.id', 'messaging.message_id'],
  );
  assert.equal(new Set(STAGES).size, STAGES.length);
});
