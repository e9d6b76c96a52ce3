// The aio-pika instrumentation's own rules: a publish names "<exchange>,<key>", a delivery the
// exchange (or on the default exchange the queue); the queue otherwise comes from the bindings.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSpan } from '../read.js';
import {
  ACK,
  CLEAN,
  MESSAGE,
  PARKED,
  evidence,
  journeyOf,
  deliveredQueue,
} from '../testing/journey.js';
import { shapeNamed } from '../testing/shapes.js';
import { received, shapeSpans } from '../testing/shape.js';

describe('python-aio-pika journeys', () => {
  test('a publish names "<exchange>,<key>": both are read from it', () => {
    const [publish] = shapeSpans(shapeNamed('python-aio-pika'), MESSAGE, [], 0);
    const r = readSpan(received(publish!));
    assert.deepEqual([r.stage, r.exchange, r.routingKey], ['publish', 'shop', 'order.created']);
  });
  test('the queue: named by the bindings where they route to one queue, and marked inferred', () => {
    assert.deepEqual(deliveredQueue(journeyOf('python-aio-pika', [ACK]).steps), [
      'shop.work',
      'inferred',
    ]);
  });
  test('a dead letter that turns up after the inference wins at the next read', () => {
    const inferred = journeyOf('python-aio-pika', [ACK], evidence(CLEAN)).journey;
    assert.match(inferred.verdict, /^processed once/);
    const later = journeyOf('python-aio-pika', [ACK], {
      ...evidence(CLEAN),
      parked: PARKED.parked,
    }).journey;
    assert.deepEqual(later.kinds, ['dead_lettered', 'settle_inferred']);
    assert.doesNotMatch(later.verdict, /processed once/);
    // And a second delivery of the message: the first came back, the second is decided on its own.
    const back = journeyOf('python-aio-pika', [ACK, ACK], evidence(CLEAN)).journey;
    assert.deepEqual(
      back.inferred.map((i) => [i.fate, i.evidence]),
      [
        ['came_back', 'later_delivery'],
        ['acked', 'counters'],
      ],
    );
  });
});
